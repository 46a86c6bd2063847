package harness

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/rubichan/rubichan/run/session"
)

// ResumedSchema is the --json-schema of the session that --resume or
// --continue names, for a run that gives none: the schema its last run
// line recorded, and the session's path; nil when that run had none or
// the run resumes nothing. The header line and each resumed run's line
// record the schema of their run.
func ResumedSchema(f SessionSettings, dir, root string) (json.RawMessage, string, error) {
	if f.Off || !f.Resuming() {
		return nil, "", nil
	}
	path, err := f.resumePath(session.Store{Dir: dir}, root)
	if err != nil {
		return nil, "", err
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("harness: read the session's schema: %w", err)
	}
	defer file.Close()
	var last json.RawMessage
	r := bufio.NewReader(file)
	for {
		line, err := r.ReadBytes('\n')
		if bytes.HasPrefix(line, []byte(`{"type":"`+session.TypeHeader+`"`)) || bytes.HasPrefix(line, []byte(`{"type":"`+session.TypeRun+`"`)) {
			var l struct {
				JSONSchema json.RawMessage `json:"json_schema"`
			}
			if json.Unmarshal(line, &l) == nil {
				last = l.JSONSchema
			}
		}
		if errors.Is(err, io.EOF) {
			return last, path, nil
		}
		if err != nil {
			return nil, "", fmt.Errorf("harness: read the session's schema: %w", err)
		}
	}
}
