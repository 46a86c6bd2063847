package tasks

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// Task is one line of a tasks file.
type Task struct {
	// ID names the task in messages; optional.
	ID string `json:"id,omitempty"`
	// Prompt is the task's prompt, as the PROMPT arguments; required.
	Prompt string `json:"prompt"`
	// Dir is a directory of the checkout to work in, relative to the
	// workspace; "" is the workspace itself.
	Dir string `json:"dir,omitempty"`
	// Policy is a policy file; a relative path is taken from the tasks
	// file's directory.
	Policy string `json:"policy,omitempty"`
	// Allow are allow rules added to --allow.
	Allow []string `json:"allow,omitempty"`
	// Model replaces --model.
	Model string `json:"model,omitempty"`
	// Line is the task's line in its file, from 1.
	Line int `json:"-"`
}

// Name is how messages name the task: its id, else its line.
func (t Task) Name() string {
	if t.ID != "" {
		return strconv.Quote(t.ID)
	}
	return "on line " + strconv.Itoa(t.Line)
}

// Parse reads the tasks of a tasks file; name names it in errors. Blank
// lines are skipped and not counted as tasks. A line that is not one JSON
// object of the known fields, or has no prompt, is an error naming
// name:line.
func Parse(r io.Reader, name string) ([]Task, error) {
	br := bufio.NewReader(r)
	var out []Task
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("tasks: %s: %w", name, err)
		}
		if t := bytes.TrimSpace(b); len(t) > 0 {
			task, perr := parseLine(t)
			if perr != nil {
				return nil, fmt.Errorf("tasks: %s:%d: %w", name, line, perr)
			}
			task.Line = line
			out = append(out, task)
		}
		if err != nil {
			return out, nil
		}
	}
}

// parseLine decodes one task strictly: unknown fields and trailing data
// are errors, and the prompt is required.
func parseLine(b []byte) (Task, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var t Task
	if err := dec.Decode(&t); err != nil {
		return Task{}, err
	}
	if dec.More() {
		return Task{}, errors.New("more than one JSON value on the line")
	}
	if t.Prompt == "" {
		return Task{}, errors.New(`no "prompt"`)
	}
	return t, nil
}

// Pick returns task index (from 0) of the tasks file.
func Pick(file string, index int) (Task, error) {
	f, err := os.Open(file)
	if err != nil {
		return Task{}, fmt.Errorf("tasks: %w", err)
	}
	defer f.Close()
	all, err := Parse(f, file)
	if err != nil {
		return Task{}, err
	}
	if index < 0 || index >= len(all) {
		return Task{}, fmt.Errorf("tasks: %s has %d tasks; there is no task %d (indexes count from 0)", file, len(all), index)
	}
	return all[index], nil
}

// Index is the task index of this process: flag (the --task-index value,
// "" when not given), else JOB_COMPLETION_INDEX (a Kubernetes Indexed
// Job's, 0-based), else CI_NODE_INDEX − 1 (GitLab's parallel jobs count
// from 1). It also returns where the index came from, for messages.
func Index(flag string, lookupEnv func(string) (string, bool)) (int, string, error) {
	if flag != "" {
		n, err := nonNegative(flag)
		if err != nil {
			return 0, "", fmt.Errorf("tasks: --task-index: %w", err)
		}
		return n, "--task-index", nil
	}
	if v, ok := lookupEnv("JOB_COMPLETION_INDEX"); ok && v != "" {
		n, err := nonNegative(v)
		if err != nil {
			return 0, "", fmt.Errorf("tasks: JOB_COMPLETION_INDEX: %w", err)
		}
		return n, "JOB_COMPLETION_INDEX", nil
	}
	if v, ok := lookupEnv("CI_NODE_INDEX"); ok && v != "" {
		n, err := nonNegative(v)
		if err == nil && n == 0 {
			err = errors.New("want 1 or more (GitLab counts parallel jobs from 1), got 0")
		}
		if err != nil {
			return 0, "", fmt.Errorf("tasks: CI_NODE_INDEX: %w", err)
		}
		return n - 1, "CI_NODE_INDEX", nil
	}
	return 0, "", errors.New("tasks: no task index: pass --task-index N (RUBICHAN_TASK_INDEX), or run as a Kubernetes Indexed Job (JOB_COMPLETION_INDEX) or a GitLab parallel job (CI_NODE_INDEX)")
}

func nonNegative(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("want a whole number from 0, got %q", s)
	}
	return n, nil
}
