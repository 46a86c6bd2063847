package toolkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// argSchema is a tool's argument schema, parsed on first use: a call's
// arguments are checked against it twice (for the judge, then to run),
// and parsing the schema each time was most of decodeArgs' cost.
type argSchema struct {
	parsed func() (*parsedSchema, error)
}

// parsedSchema is what decodeArgs enforces of a schema.
type parsedSchema struct {
	Required   []string                `json:"required"`
	Properties map[string]propertySpec `json:"properties"`
}

// newArgSchema returns the schema raw, parsed when first used.
func newArgSchema(raw json.RawMessage) *argSchema {
	return &argSchema{parsed: sync.OnceValues(func() (*parsedSchema, error) {
		var s parsedSchema
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("tool schema is invalid: %v", err)
		}
		return &s, nil
	})}
}

// decodeArgs decodes a call's JSON arguments into dst, a pointer to the
// tool's params struct, checking them against the tool's schema: every
// property listed as required must be present, unknown properties are
// refused, and a value of the wrong type is named. The error is meant for
// the model.
func decodeArgs(schema *argSchema, args json.RawMessage, dst any) error {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		args = []byte("{}")
	}
	s, err := schema.parsed()
	if err != nil {
		return err
	}
	var present map[string]json.RawMessage
	if err := json.Unmarshal(args, &present); err != nil {
		return fmt.Errorf("arguments are not a JSON object: %v", err)
	}
	if err := checkKeys(s, args); err != nil {
		return err
	}
	var unknown []string
	for name := range present {
		if _, ok := s.Properties[name]; !ok {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return fmt.Errorf("unknown argument %q (accepted: %s)", unknown[0], strings.Join(sortedKeys(s.Properties), ", "))
	}
	for _, name := range s.Required {
		v, ok := present[name]
		if !ok || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			return fmt.Errorf("missing required argument %q", name)
		}
	}
	for name, v := range present {
		if err := s.Properties[name].checkRange(name, v); err != nil {
			return err
		}
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("argument %q must be of type %s, got %s", te.Field, jsonType(te.Type.Kind().String()), te.Value)
		}
		return fmt.Errorf("arguments: %v", err)
	}
	return nil
}

// propertySpec is the part of a schema property decodeArgs enforces beyond
// the Go type.
type propertySpec struct {
	Minimum *float64 `json:"minimum"`
	Maximum *float64 `json:"maximum"`
}

// checkRange enforces minimum and maximum on a numeric argument; other
// values are left to the type check.
func (p propertySpec) checkRange(name string, v json.RawMessage) error {
	var n float64
	if json.Unmarshal(v, &n) != nil {
		return nil
	}
	if p.Minimum != nil && n < *p.Minimum {
		return fmt.Errorf("argument %q must be at least %v, got %v", name, *p.Minimum, n)
	}
	if p.Maximum != nil && n > *p.Maximum {
		return fmt.Errorf("argument %q must be at most %v, got %v", name, *p.Maximum, n)
	}
	return nil
}

// jsonType maps a Go kind to the JSON schema type the model knows.
func jsonType(kind string) string {
	switch kind {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "integer"
	case "float32", "float64":
		return "number"
	case "bool":
		return "boolean"
	case "slice", "array":
		return "array"
	case "map", "struct":
		return "object"
	}
	return kind
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// errorResult is an error the model can fix.
func errorResult(format string, a ...any) Result {
	return Result{Content: fmt.Sprintf(format, a...), IsError: true}
}

// checkKeys refuses an arguments object that names a key twice, or a key
// that differs from one of the schema's properties only by case. Go's
// decoding takes the last of duplicates and matches field names without
// regard to case, so `{"command": "ls", "Command": "rm -rf x"}` would run
// the second while anything that read the first showed "ls": such a call
// is malformed, and the model is told so.
func checkKeys(s *parsedSchema, args json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(args))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("arguments are not a JSON object")
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fmt.Errorf("arguments: %v", err)
		}
		key, _ := t.(string)
		if seen[key] {
			return fmt.Errorf("argument %q is given twice", key)
		}
		seen[key] = true
		if _, ok := s.Properties[key]; !ok {
			for name := range s.Properties {
				if strings.EqualFold(name, key) {
					return fmt.Errorf("argument %q differs from %q only by case; names are case-sensitive", key, name)
				}
			}
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("arguments: %v", err)
		}
	}
	return nil
}
