package acptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaURL is where the compiler files the schema; nothing is fetched.
const schemaURL = "https://agentclientprotocol.com/schema/v1/schema.json"

// SchemaFile is the schema's path below the module root: the npm
// package's own copy, its version pinned by testdata/acp/package-lock.json.
const SchemaFile = "testdata/acp/node_modules/@agentclientprotocol/sdk/schema/v1/schema.json"

// Validator validates the agent's messages against the ACP schema. It is
// safe for concurrent use.
type Validator struct {
	root *jsonschema.Schema
	defs map[string]*jsonschema.Schema
}

// moduleRoot finds the directory of go.mod above the test's directory.
func moduleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("acptest: no go.mod above the test's directory")
		}
		dir = up
	}
}

// Modules is testdata/acp/node_modules; a missing package fails the
// test (it must not pass by skipping).
func Modules(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(moduleRoot(t), "testdata", "acp", "node_modules")
	if _, err := os.Stat(filepath.Join(dir, "@agentclientprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("the ACP SDK is not installed (%v): run `npm ci --prefix testdata/acp` or `make test`", err)
	}
	return dir
}

// NewValidator compiles the schema of the installed SDK.
func NewValidator(t testing.TB) *Validator {
	t.Helper()
	Modules(t)
	b, err := os.ReadFile(filepath.Join(moduleRoot(t), SchemaFile))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("acptest: parse schema: %v", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schemaURL, doc); err != nil {
		t.Fatalf("acptest: add schema: %v", err)
	}
	v := &Validator{defs: map[string]*jsonschema.Schema{}}
	if v.root, err = c.Compile(schemaURL); err != nil {
		t.Fatalf("acptest: compile schema: %v", err)
	}
	for _, d := range []string{"SessionNotification", "RequestPermissionRequest", "InitializeResponse",
		"NewSessionResponse", "PromptResponse", "CloseSessionResponse", "ListSessionsResponse", "LoadSessionResponse",
		"ResumeSessionResponse", "SetSessionConfigOptionResponse", "Error"} {
		if v.defs[d], err = c.Compile(schemaURL + "#/$defs/" + d); err != nil {
			t.Fatalf("acptest: compile %s: %v", d, err)
		}
	}
	return v
}

// methodResult names the schema definition of each method's result.
var methodResult = map[string]string{
	"initialize":     "InitializeResponse",
	"session/new":    "NewSessionResponse",
	"session/prompt": "PromptResponse",
	"session/close":  "CloseSessionResponse",
	"session/list":   "ListSessionsResponse",
	"session/load":   "LoadSessionResponse",
	"session/resume": "ResumeSessionResponse",

	"session/set_config_option": "SetSessionConfigOptionResponse",
}

// Validate checks one line the agent sent: a JSON-RPC 2.0 message of the
// schema's, and its params or result against the definition of its
// method (method is the request's for a response, "" when unknown).
func (v *Validator) Validate(line []byte, method string) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if err := v.root.Validate(inst); err != nil {
		return fmt.Errorf("not an ACP message: %w", err)
	}
	var m struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return err
	}
	part, def := m.Result, methodResult[method]
	switch {
	case m.Method == "session/update":
		part, def = m.Params, "SessionNotification"
	case m.Method == "session/request_permission":
		part, def = m.Params, "RequestPermissionRequest"
	case m.Method != "":
		return fmt.Errorf("a request or notification the client does not know: %s", m.Method)
	case m.Error != nil:
		part, def = m.Error, "Error"
	}
	if def == "" {
		return fmt.Errorf("a response to a request of unknown method %q", method)
	}
	pi, err := jsonschema.UnmarshalJSON(bytes.NewReader(part))
	if err != nil {
		return err
	}
	if err := v.defs[def].Validate(pi); err != nil {
		return fmt.Errorf("not a valid %s: %w", def, err)
	}
	return nil
}
