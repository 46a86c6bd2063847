package structured

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/rubichan/rubichan/run/agent"
)

// CheckName is the [agent.CheckError] check of structured output: the
// command layer's exit 7.
const CheckName = "json-schema"

// ErrNoMatch is wrapped by the error of a run whose answer never matched.
var ErrNoMatch = errors.New("the answer did not match --json-schema")

// Check is the check of the final answer against the schema (an
// [agent.Verifier]): the JSON of the model's last text (native mode), or
// the input of its call to the final tool (tool mode). An answer that
// does not match goes back to the model with its problems while retries
// are left; then the run ends with an [*agent.CheckError] of check
// [CheckName].
type Check struct {
	schema  *Schema
	retries int
	tool    bool
	red     *agent.Redactor
	out     json.RawMessage
}

// CheckOptions are how a [Check] works.
type CheckOptions struct {
	Retries int             // answers sent back at most (--json-schema-retries)
	Tool    bool            // the answer comes through the final tool
	Redact  *agent.Redactor // the run's secrets, hidden in Output
}

// NewCheck returns the check of schema.
func NewCheck(schema *Schema, o CheckOptions) *Check {
	return &Check{schema: schema, retries: max(o.Retries, 0), tool: o.Tool, red: o.Redact}
}

// Output is the valid answer of the last run, compact, on one line, its
// secrets redacted; nil when it gave none.
func (c *Check) Output() json.RawMessage { return c.out }

// Reset forgets the last run's answer (a chat's next line).
func (c *Check) Reset() { c.out = nil }

// Verify checks the final answer (it implements [agent.Verifier]).
func (c *Check) Verify(_ context.Context, attempt int, final agent.Final) (agent.Verification, error) {
	if attempt == 1 {
		c.out = nil
	}
	doc, problems := c.answer(final)
	if len(problems) == 0 {
		var b bytes.Buffer
		if err := json.Compact(&b, doc); err != nil {
			return agent.Verification{}, fmt.Errorf("structured: compact the answer: %w", err)
		}
		c.out = c.red.RedactJSON(b.Bytes())
		return agent.Verification{Passed: true}, nil
	}
	if attempt > c.retries {
		return agent.Verification{Stop: &agent.CheckError{Check: CheckName,
			Err: fmt.Errorf("%w (%d retries): %s", ErrNoMatch, c.retries, list(problems, 3))}}, nil
	}
	return agent.Verification{Feedback: c.feedback(problems, attempt)}, nil
}

// answer is the document the final answer holds and its problems.
func (c *Check) answer(final agent.Final) ([]byte, []Problem) {
	if c.tool {
		if final.Tool == "" {
			return nil, []Problem{{Message: "you answered in text; call the " + ToolName + " tool with the answer instead"}}
		}
		doc, err := c.schema.Answer(final.Input)
		if err != nil {
			return nil, []Problem{{Message: err.Error()}}
		}
		return doc, c.schema.Validate(doc)
	}
	text := strings.TrimSpace(final.Text)
	return []byte(text), c.schema.Validate([]byte(text))
}

// feedback is the message that sends the model back.
func (c *Check) feedback(problems []Problem, attempt int) string {
	how := "Answer again with only the corrected JSON document."
	if c.tool {
		how = "Call the " + ToolName + " tool again with a corrected answer."
	}
	return fmt.Sprintf("Your final answer does not match the required JSON Schema (retry %d of %d). Problems, by JSON pointer into the answer:\n%s\n%s",
		attempt, c.retries, list(problems, 20), how)
}

// list is at most n problems, one a line.
func list(ps []Problem, n int) string {
	var lines []string
	for i, p := range ps {
		if i == n {
			lines = append(lines, fmt.Sprintf("… and %d more", len(ps)-n))
			break
		}
		lines = append(lines, "- "+p.String())
	}
	return strings.Join(lines, "\n")
}
