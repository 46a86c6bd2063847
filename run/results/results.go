package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/rubichan/rubichan/run/events"
)

// FileName is the name of the result files Scan reads.
const FileName = "result.json"

// maxSize bounds a result file Scan reads: a run's stream-json output,
// which ends with its result, is far smaller.
const maxSize = 64 << 20

// Entry is one task's result.
type Entry struct {
	// Task is the directory of its result.json relative to the scanned
	// one, slash-separated ("." for a result.json at the top).
	Task string
	// Result is the run's result; nil when Err is set.
	Result *events.Result
	// Err says why the file holds no result (empty, not JSON, no result
	// event): a task that died before it could write one.
	Err error
}

// Summary is the JSON summary of a fan-out.
type Summary struct {
	Tasks int `json:"tasks"`
	// ByExitCode counts the tasks per exit code; a result.json with no
	// result counts under "none".
	ByExitCode map[string]int `json:"by_exit_code"`
	Tokens     Tokens         `json:"tokens"`
	// CostUSD is the sum of the known costs; CostUnknown counts the
	// results whose model had no price.
	CostUSD     float64 `json:"cost_usd"`
	CostUnknown int     `json:"cost_unknown"`
	// Patches counts the tasks whose patch changes at least one file.
	Patches int `json:"patches"`
}

// Tokens are the tokens of every run, summed.
type Tokens struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
}

// NoResult is the key of [Summary.ByExitCode] for a result.json that holds
// no result.
const NoResult = "none"

// Scan reads every result.json beneath dir, sorted by task. A file that
// holds no result is an [Entry] with Err set, not an error; an error is
// returned only when dir cannot be walked.
func Scan(dir string) ([]Entry, error) {
	var out []Entry
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || d.Name() != FileName {
			return nil
		}
		rel, err := filepath.Rel(dir, filepath.Dir(path))
		if err != nil {
			return err
		}
		e := Entry{Task: filepath.ToSlash(rel)}
		e.Result, e.Err = readResult(path, d)
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	slices.SortFunc(out, func(a, b Entry) int { return compareTasks(a.Task, b.Task) })
	return out, nil
}

// compareTasks orders tasks as numbers where both are (a Job's indexes:
// 2 before 10), else as strings.
func compareTasks(a, b string) int {
	na, errA := strconv.Atoi(a)
	nb, errB := strconv.Atoi(b)
	switch {
	case errA == nil && errB == nil:
		return na - nb
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// readResult reads the result of one file: the last line that is a JSON
// object of type "result", or the whole file as one (an --output json
// object, perhaps indented). The directory is other machines' artifacts:
// only a regular file (not a symlink, which may name a file outside DIR
// or /dev/zero, nor a FIFO) of at most maxSize bytes is read.
func readResult(path string, d fs.DirEntry) (*events.Result, error) {
	if !d.Type().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxSize {
		return nil, fmt.Errorf("larger than %d MiB", maxSize>>20)
	}
	return findResult(data)
}

// findResult is readResult over the file's bytes. An object of type
// "result" whose fields do not fit the schema is an error saying so.
func findResult(data []byte) (*events.Result, error) {
	if r, err := parseResult(data); r != nil || err != nil {
		return r, err
	}
	lines := bytes.Split(data, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		if r, err := parseResult(lines[i]); r != nil || err != nil {
			return r, err
		}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("empty")
	}
	return nil, errors.New("no result object")
}

// parseResult decodes b as a result event: nil and no error when b is not
// a JSON object of type "result".
func parseResult(b []byte) (*events.Result, error) {
	var head struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(b, &head) != nil || head.Type != "result" {
		return nil, nil
	}
	var r events.Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("invalid result: %w", err)
	}
	return &r, nil
}

// Summarize sums up entries.
func Summarize(entries []Entry) Summary {
	s := Summary{Tasks: len(entries), ByExitCode: map[string]int{}}
	for _, e := range entries {
		r := e.Result
		if r == nil {
			s.ByExitCode[NoResult]++
			continue
		}
		s.ByExitCode[strconv.Itoa(r.ExitCode)]++
		s.Tokens.Input += r.Usage.InputTokens
		s.Tokens.Output += r.Usage.OutputTokens
		if r.CostUSD != nil {
			s.CostUSD += *r.CostUSD
		} else {
			s.CostUnknown++
		}
		if r.Patch != nil && r.Patch.Files > 0 {
			s.Patches++
		}
	}
	return s
}
