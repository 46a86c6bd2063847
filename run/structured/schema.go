package structured

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Schema is the user's JSON Schema, compiled.
type Schema struct {
	Source string          // the file it came from, or "inline"
	Raw    json.RawMessage // the schema as given, compact
	Digest string          // hex SHA-256 of Raw, for the init event
	doc    any             // Raw decoded
	sch    *jsonschema.Resolved
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
// 2020-12 schema unless its $schema names draft-07. It is one document:
// a $ref or $schema naming another file or a URL is an error (see
// [noLoader]).
func Parse(data []byte, source string) (*Schema, error) {
	doc, err := decodeJSON(data, true)
	if err != nil {
		return nil, &Error{File: source, Msg: "not JSON: " + err.Error()}
	}
	switch doc.(type) {
	case map[string]any, bool:
	default:
		return nil, &Error{File: source, Msg: "a schema is an object or a boolean"}
	}
	if e := checkSchema(doc, ""); e != nil {
		e.File = source
		return nil, e
	}
	if p := refLoop(doc); p != "" {
		return nil, &Error{File: source, Pointer: p, Msg: "a $ref loop that never steps into the answer"}
	}
	sch, err := resolve(doc)
	if err != nil {
		return nil, compileError(source, doc, err)
	}
	var raw bytes.Buffer
	if err := json.Compact(&raw, data); err != nil {
		return nil, &Error{File: source, Msg: err.Error()}
	}
	sum := sha256.Sum256(raw.Bytes())
	return &Schema{Source: source, Raw: raw.Bytes(), Digest: hex.EncodeToString(sum[:]), doc: doc, sch: sch}, nil
}

// decodeJSON decodes one JSON document, numbers as [json.Number] when
// exact (the schema, kept as written) or float64 (an instance, as the
// validator reads it).
func decodeJSON(data []byte, exact bool) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if exact {
		dec.UseNumber()
	}
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

// resolve compiles the decoded schema doc.
func resolve(doc any) (*jsonschema.Resolved, error) {
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	var sch jsonschema.Schema
	if err := json.Unmarshal(b, &sch); err != nil {
		return nil, err
	}
	return sch.Resolve(&jsonschema.ResolveOptions{Loader: noLoader})
}

// noLoader refuses every document outside the schema. The schema sent to
// the provider is the one document given, so a reference out of it
// could not be honoured there; and the schema may come from an untrusted
// checkout, whose $ref must not make the run read a file the policy
// guards (~/.aws, a device) or fetch a URL.
func noLoader(u *url.URL) (*jsonschema.Schema, error) {
	return nil, &refError{ref: u.String()}
}

// refError is a reference out of the schema.
type refError struct{ ref string }

func (e *refError) Error() string {
	return "a $ref or $schema may name only the schema itself (#/...) or a published meta-schema (draft 2020-12 or draft-07), not " + e.ref
}

// compileError names the file of a schema the resolver refused, and the
// pointer of the reference out of it when that is why.
func compileError(source string, doc any, err error) error {
	var re *refError
	if errors.As(err, &re) {
		return &Error{File: source, Pointer: findRef(doc, "", re.ref), Msg: re.Error()}
	}
	return &Error{File: source, Msg: err.Error()}
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
	inst, err := decodeJSON(doc, false)
	if err != nil {
		return []Problem{{Message: "not a JSON document: " + err.Error()}}
	}
	if err := s.sch.Validate(inst); err == nil {
		return nil
	}
	l := locator{root: s.doc}
	return l.problems(inst, s.doc, "", 0)
}
