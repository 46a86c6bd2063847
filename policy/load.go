package policy

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"github.com/rubichan/rubichan/policy/tomlpos"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// LoadError is a policy that cannot be used: unreadable, not TOML, an
// unknown key, a bad value or a failed self-test. The runner refuses to
// start (exit code 2).
type LoadError struct {
	// File names the policy file, or "command line" for --allow/--deny.
	File string
	// Key is the offending key, such as "rule[2].paths"; may be empty.
	Key string
	// Line is the 1-based line in the file, 0 when unknown.
	Line int
	// Err is the problem.
	Err error
}

// Error renders "policy: FILE:LINE: KEY: problem".
func (e *LoadError) Error() string {
	var b strings.Builder
	b.WriteString("policy: ")
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	if e.Key != "" {
		b.WriteString(": " + e.Key)
	}
	b.WriteString(": " + e.Err.Error())
	return b.String()
}

// Unwrap returns the underlying problem.
func (e *LoadError) Unwrap() error { return e.Err }

// document is the policy file's schema.
type document struct {
	Version  *int         `toml:"version"`
	Defaults *defaultsDoc `toml:"defaults"`
	Tools    *toolsDoc    `toml:"tools"`
	Shell    *shellDoc    `toml:"shell"`
	Rule     []ruleDoc    `toml:"rule"`
	Test     []testDoc    `toml:"test"`
}

type defaultsDoc struct {
	Decision      *string `toml:"decision"`
	HeadlessAsk   *string `toml:"headless_ask"`
	MaxDenials    *int    `toml:"max_denials"`
	SecretDenials *bool   `toml:"secret_denials"`
}

type toolsDoc struct {
	Read  *string `toml:"read"`
	Write *string `toml:"write"`
	Shell *string `toml:"shell"`
	MCP   *string `toml:"mcp"`
}

type shellDoc struct {
	Redirects     *string `toml:"redirects"`
	Background    *string `toml:"background"`
	PlainPrograms *bool   `toml:"plain_programs"`
}

type ruleDoc struct {
	ID       string   `toml:"id"`
	Tool     string   `toml:"tool"`
	Decision string   `toml:"decision"`
	Commands []string `toml:"commands"`
	Paths    []string `toml:"paths"`
	Names    []string `toml:"names"`
	Reason   string   `toml:"reason"`
}

type testDoc struct {
	Tool    string  `toml:"tool"`
	Command *string `toml:"command"`
	Path    *string `toml:"path"`
	Name    *string `toml:"name"`
	Expect  string  `toml:"expect"`
}

// Load reads and parses the policy file at file. Errors are [*LoadError].
func Load(file string) (*Policy, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, &LoadError{File: file, Err: err}
	}
	p, err := Parse(file, data)
	if err != nil {
		return nil, err
	}
	// Remember the file as the file tools will see it (absolute, links
	// evaluated), so a write to it can be refused.
	if abs, err := filepath.Abs(file); err == nil {
		p.file = abs
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			p.file = real
		}
	}
	return p, nil
}

//go:embed default.toml
var defaultPolicy []byte

//go:embed secrets.toml
var secretsPolicy []byte

// RuleSecrets is the id of the built-in secret-file denials that every
// policy inherits (see [Parse]).
const RuleSecrets = "default-secrets"

// secretsOffWarning is the warning of a policy that turns the built-in
// secret-file denials off.
const secretsOffWarning = "secret_denials = false: the built-in denials of secret files " +
	"(.env, *.pem, *.key, id_rsa*, .netrc, .npmrc, .pypirc, .git/config) are off, so the model may read them"

// DefaultName is the name of the built-in policy.
const DefaultName = "built-in default policy"

// Default returns the built-in policy that applies when no policy file is
// given: reads allowed except common secret files, writes and shell asked,
// "ask" denied in headless runs.
//
// Its [[test]] entries are not run: the embedded file and its tests are
// the same at every start, and TestDefaultSelfTest runs them (they cost
// each start half a millisecond of shell parsing).
func Default() *Policy {
	p, err := parse(DefaultName, defaultPolicy)
	if err != nil { // the embedded file is tested; never reached
		panic(err)
	}
	return p
}

// Parse parses a policy file's contents; name names it in errors and in
// rule ids.
//
// Every policy inherits two things from the built-in one. The built-in
// secret-file denials (rule [RuleSecrets]: .env, keys, .netrc, .git/config,
// …) are added to its rules, so, deny winning, a file can add to them but
// not allow what they deny; only `[defaults] secret_denials = false` turns
// them off, and the policy then carries a warning. And a file that says
// nothing about reads (no `[tools] read`, no read rule) gets the built-in read behaviour, allow, whatever its default: a
// headless agent that cannot read is blind.
//
// Parsing is strict: unknown keys, unknown classes or decisions,
// bad globs and command patterns are errors, and so is a failing [[test]].
// Errors are [*LoadError].
func Parse(name string, data []byte) (*Policy, error) {
	p, err := parse(name, data)
	if err != nil {
		return nil, err
	}
	if err := p.selfTest(); err != nil {
		return nil, err
	}
	return p, nil
}

// parse is Parse without running the file's [[test]] entries.
func parse(name string, data []byte) (*Policy, error) {
	var doc document
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, tomlError(name, err)
	}
	b := builder{name: name, lines: tomlpos.Index(data)}
	return b.build(&doc)
}

// tomlError turns a go-toml error into a LoadError with its position.
func tomlError(name string, err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		e := strict.Errors[0]
		line, _ := e.Position()
		return &LoadError{File: name, Key: strings.Join(e.Key(), "."), Line: line, Err: errors.New("unknown key")}
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ := de.Position()
		return &LoadError{File: name, Key: strings.Join(de.Key(), "."), Line: line, Err: errors.New(strings.TrimPrefix(de.Error(), "toml: "))}
	}
	return &LoadError{File: name, Err: err}
}

// builder turns a decoded document into a Policy.
type builder struct {
	name  string
	lines tomlpos.Lines
}

func (b *builder) errf(key string, format string, args ...any) error {
	line := b.lines.Dotted(key)
	for k := key; line == 0 && k != ""; {
		i := strings.LastIndexAny(k, ".[")
		if i < 0 {
			break
		}
		k = k[:i]
		line = b.lines.Dotted(k)
	}
	return &LoadError{File: b.name, Key: key, Line: line, Err: fmt.Errorf(format, args...)}
}

// build turns the document into a policy: the settings, then the rules
// and the self-tests in file order.
func (b *builder) build(doc *document) (*Policy, error) {
	p := &Policy{name: b.name, defaults: Ask, headless: AskDeny, shell: ShellOptions{Background: Ask, PlainPrograms: true}}
	if doc.Version != nil && *doc.Version != 1 {
		return nil, b.errf("version", "unsupported version %d (want 1)", *doc.Version)
	}
	if err := b.defaults(p, doc.Defaults); err != nil {
		return nil, err
	}
	if err := b.tools(p, doc.Tools); err != nil {
		return nil, err
	}
	if p.tools[ClassRead] == 0 && !slices.ContainsFunc(doc.Rule, func(r ruleDoc) bool {
		c, err := ParseClass(r.Tool)
		return err == nil && c == ClassRead
	}) {
		p.tools[ClassRead] = Allow
	}
	if err := b.shell(p, doc.Shell); err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	for i, rd := range doc.Rule {
		r, err := b.rule(i, rd)
		if err != nil {
			return nil, err
		}
		if ids[r.id] {
			return nil, b.errf(fmt.Sprintf("rule[%d].id", i), "duplicate rule id %q", r.id)
		}
		ids[r.id] = true
		p.rules = append(p.rules, r)
	}
	if doc.Defaults == nil || doc.Defaults.SecretDenials == nil || *doc.Defaults.SecretDenials {
		p.rules = append(p.rules, secretRules()...)
	}
	for i, td := range doc.Test {
		t, err := b.test(i, td)
		if err != nil {
			return nil, err
		}
		p.tests = append(p.tests, t)
	}
	p.warnings = coverageWarnings(p.rules)
	p.secretsOff = doc.Defaults != nil && doc.Defaults.SecretDenials != nil && !*doc.Defaults.SecretDenials
	return p, nil
}

// secretRules returns the built-in secret-file denials.
func secretRules() []*rule {
	var doc document
	if err := toml.Unmarshal(secretsPolicy, &doc); err != nil {
		panic(err) // the embedded file is tested; never reached
	}
	b := builder{name: DefaultName}
	var out []*rule
	for i, rd := range doc.Rule {
		id := rd.ID
		rd.ID = "" // reserved in files
		r, err := b.rule(i, rd)
		if err != nil {
			panic(err)
		}
		r.id = id
		out = append(out, r)
	}
	return out
}

// defaults reads the [defaults] table into p.
func (b *builder) defaults(p *Policy, d *defaultsDoc) error {
	if d == nil {
		return nil
	}
	if d.Decision != nil {
		dec, err := ParseDecision(*d.Decision)
		if err != nil {
			return b.errf("defaults.decision", "%v", err)
		}
		p.defaults = dec
	}
	if d.HeadlessAsk != nil {
		switch *d.HeadlessAsk {
		case "deny":
			p.headless = AskDeny
		case "abort":
			p.headless = AskAbort
		case "defer":
			p.headless = AskDefer
		default:
			return b.errf("defaults.headless_ask", "unknown value %q (want deny, abort or defer)", *d.HeadlessAsk)
		}
	}
	if d.MaxDenials != nil {
		if *d.MaxDenials < 0 {
			return b.errf("defaults.max_denials", "must not be negative")
		}
		p.maxDenials = *d.MaxDenials
	}
	return nil
}

// tools reads the [tools] table into p.
func (b *builder) tools(p *Policy, t *toolsDoc) error {
	if t == nil {
		return nil
	}
	for _, e := range []struct {
		c Class
		v *string
	}{{ClassRead, t.Read}, {ClassWrite, t.Write}, {ClassShell, t.Shell}, {ClassMCP, t.MCP}} {
		if e.v == nil {
			continue
		}
		dec, err := ParseDecision(*e.v)
		if err != nil {
			return b.errf("tools."+e.c.String(), "%v", err)
		}
		p.tools[e.c] = dec
	}
	return nil
}

// shell reads the [shell] table into p.
func (b *builder) shell(p *Policy, s *shellDoc) error {
	if s == nil {
		return nil
	}
	if s.Redirects != nil {
		switch *s.Redirects {
		case "check":
			p.shell.Redirects = RedirectCheck
		case "deny":
			p.shell.Redirects = RedirectDeny
		default:
			return b.errf("shell.redirects", "unknown value %q (want check or deny)", *s.Redirects)
		}
	}
	if s.Background != nil {
		dec, err := ParseDecision(*s.Background)
		if err != nil {
			return b.errf("shell.background", "%v", err)
		}
		p.shell.Background = dec
	}
	if s.PlainPrograms != nil {
		p.shell.PlainPrograms = *s.PlainPrograms
	}
	return nil
}

// reservedID reports whether id could be mistaken for a decision that no
// rule made (a guard, the fallback, a command-line rule).
func reservedID(id string) bool {
	switch id {
	case RuleDefault, RuleOpaque, RuleGuard, RuleSession, RuleSessionDeny, RuleSecrets, RuleAllowAll:
		return true
	}
	for _, p := range []string{"tools.", "shell.", "defaults.", "--"} {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}

func (b *builder) rule(i int, rd ruleDoc) (*rule, error) {
	key := fmt.Sprintf("rule[%d]", i)
	r := &rule{id: rd.ID, reason: rd.Reason}
	if r.id == "" {
		r.id = fmt.Sprintf("%s rule %d", b.name, i+1)
	} else if reservedID(r.id) {
		return nil, b.errf(key+".id", "id %q is reserved for the built-in rules and decisions no rule makes", r.id)
	}
	var err error
	if rd.Tool == "" {
		return nil, b.errf(key+".tool", "missing (want read, write or shell)")
	}
	if r.class, err = ParseClass(rd.Tool); err != nil {
		return nil, b.errf(key+".tool", "%v", err)
	}
	if rd.Decision == "" {
		return nil, b.errf(key+".decision", "missing (want allow, ask or deny)")
	}
	if r.decision, err = ParseDecision(rd.Decision); err != nil {
		return nil, b.errf(key+".decision", "%v", err)
	}
	if r.class == ClassMCP {
		return b.mcpRule(key, rd, r)
	}
	if len(rd.Names) > 0 {
		return nil, b.errf(key+".names", "a %s rule takes no names (names are for mcp rules)", r.class)
	}
	if r.class == ClassShell {
		if len(rd.Paths) > 0 {
			return nil, b.errf(key+".paths", "a shell rule takes commands, not paths")
		}
		if len(rd.Commands) == 0 {
			return nil, b.errf(key+".commands", "a shell rule needs at least one command pattern")
		}
		for _, c := range rd.Commands {
			cp, err := parseCommandPattern(c)
			if err != nil {
				return nil, b.errf(key+".commands", "%v", err)
			}
			r.commands = append(r.commands, cp)
		}
		return r, nil
	}
	if len(rd.Commands) > 0 {
		return nil, b.errf(key+".commands", "a %s rule takes paths, not commands", r.class)
	}
	if len(rd.Paths) == 0 {
		return nil, b.errf(key+".paths", "a %s rule needs at least one path pattern", r.class)
	}
	for _, s := range rd.Paths {
		pat, err := parsePathPattern(s)
		if err != nil {
			return nil, b.errf(key+".paths", "%v", err)
		}
		r.paths = append(r.paths, pat)
	}
	return r, nil
}
