package structured

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema is the user's JSON Schema, compiled.
type Schema struct {
	Source string          // the file it came from, or "inline"
	Raw    json.RawMessage // the schema as given, compact
	Digest string          // hex SHA-256 of Raw, for the init event
	doc    any             // Raw decoded
	sch    *jsonschema.Schema
}

// Inline is the [Schema.Source] of a schema given on the command line.
const Inline = "inline"

// Error is a schema that cannot be used: the file it came from and the
// RFC 6901 pointer into it, when one is known.
type Error struct {
	File    string
	Pointer string
	Msg     string
}

func (e *Error) Error() string {
	if e.Pointer != "" {
		return fmt.Sprintf("structured: %s: %s: %s", e.File, e.Pointer, e.Msg)
	}
	return fmt.Sprintf("structured: %s: %s", e.File, e.Msg)
}

// Load reads the schema arg names — inline JSON (it begins with "{"),
// "@FILE" or a path, relative to dir — and compiles it.
func Load(arg, dir string) (*Schema, error) { return LoadIn(arg, dir, "") }

// LoadIn is [Load] for a run in workspace: a schema file named inside the
// workspace must not be a link out of it (see readSchemaFile).
func LoadIn(arg, dir, workspace string) (*Schema, error) {
	arg = strings.TrimSpace(arg)
	if strings.HasPrefix(arg, "{") {
		return Parse([]byte(arg), Inline)
	}
	path := strings.TrimPrefix(arg, "@")
	if path == "" {
		return nil, &Error{File: arg, Msg: "no schema file named"}
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	data, err := readSchemaFile(path, workspace)
	if err != nil {
		return nil, err
	}
	return Parse(data, path)
}

// Parse compiles the schema data that came from source. It is a draft
// 2020-12 schema unless its $schema says otherwise. It is one document:
// a $ref or $schema naming another file or a URL is an error (see
// [noLoader]); the published meta-schemas are built in.
func Parse(data []byte, source string) (*Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, &Error{File: source, Msg: "not JSON: " + err.Error()}
	}
	switch doc.(type) {
	case map[string]any, bool:
	default:
		return nil, &Error{File: source, Msg: "a schema is an object or a boolean"}
	}
	url := "inline.json"
	if source != Inline {
		if abs, err := filepath.Abs(source); err == nil {
			url = abs
		}
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource(url, doc); err != nil {
		return nil, compileError(source, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, compileError(source, err)
	}
	var raw bytes.Buffer
	if err := json.Compact(&raw, data); err != nil {
		return nil, &Error{File: source, Msg: err.Error()}
	}
	sum := sha256.Sum256(raw.Bytes())
	return &Schema{Source: source, Raw: raw.Bytes(), Digest: hex.EncodeToString(sum[:]), doc: doc, sch: sch}, nil
}

// noLoader refuses every document outside the schema. The schema sent to
// the provider is the one document given, so a reference out of it
// could not be honoured there; and the schema may come from an untrusted
// checkout, whose $ref must not make the run read a file the policy
// guards (~/.aws, a device) or fetch a URL.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("a $ref or $schema may name only the schema itself (#/...) or a published meta-schema, not %s", url)
}

// compileError names the file and the pointer of a schema the compiler
// refused: for a schema invalid against the meta-schema, the first
// leaf error's location in the schema.
func compileError(source string, err error) error {
	var sve *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	if errors.As(err, &sve) && errors.As(sve.Err, &ve) {
		if ps := problems(ve); len(ps) > 0 {
			return &Error{File: source, Pointer: ps[0].Pointer, Msg: ps[0].Message}
		}
	}
	msg := err.Error()
	ptr := ""
	if i := strings.Index(msg, "#/"); i >= 0 {
		ptr = msg[i+1:]
		if j := strings.IndexAny(ptr, "\" "); j >= 0 {
			ptr = ptr[:j]
		}
	}
	return &Error{File: source, Pointer: ptr, Msg: msg}
}

// Problem is one way an answer fails the schema: where in the answer
// (an RFC 6901 pointer, "" for the root) and what is wrong.
type Problem struct {
	Pointer string
	Message string
}

func (p Problem) String() string {
	ptr := p.Pointer
	if ptr == "" {
		ptr = "(root)"
	}
	return ptr + ": " + p.Message
}

// Validate checks the JSON document doc against the schema: nil when it
// matches, else its problems (at least one).
func (s *Schema) Validate(doc []byte) []Problem {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return []Problem{{Message: "not a JSON document: " + err.Error()}}
	}
	return s.validateValue(inst)
}

// validateValue checks a decoded document.
func (s *Schema) validateValue(inst any) []Problem {
	err := s.sch.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Problem{{Message: err.Error()}}
	}
	ps := problems(ve)
	if len(ps) == 0 {
		ps = []Problem{{Message: ve.Error()}}
	}
	return ps
}

// problems lists the leaf errors of ve (those without causes) with their
// instance pointers: an "allOf failed" is left out for what failed inside.
func problems(ve *jsonschema.ValidationError) []Problem {
	if len(ve.Causes) == 0 {
		msg := "invalid"
		if u := ve.BasicOutput(); u.Error != nil {
			msg = u.Error.String()
		}
		return []Problem{{Pointer: pointer(ve.InstanceLocation), Message: msg}}
	}
	var ps []Problem
	for _, c := range ve.Causes {
		ps = append(ps, problems(c)...)
	}
	return ps
}

// pointer is the RFC 6901 pointer of a path; "" for the root.
func pointer(path []string) string {
	var b strings.Builder
	for _, p := range path {
		b.WriteString("/" + escape(p))
	}
	return b.String()
}
