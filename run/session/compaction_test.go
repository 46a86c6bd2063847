package session

import (
	"fmt"
	"strings"
	"testing"
)

// TestCompactionLine checks how a "compaction" line folds the conversation
// read so far: the first message, the summary as a message of its own,
// then the last messages_kept messages; a line that does not fit the
// conversation is left out and the whole conversation kept.
func TestCompactionLine(t *testing.T) {
	t.Parallel()
	text := func(role, s string) string {
		return fmt.Sprintf(`{"type":%q,"time":"t","blocks":[{"type":"text","text":%q}]}`+"\n", role, s)
	}
	// task, a1, u1, a2, u2, a3, u3: seven messages.
	conv := text("user", "task")
	for i := 1; i <= 3; i++ {
		conv += text("assistant", fmt.Sprintf("a%d", i)) + text("user", fmt.Sprintf("u%d", i))
	}
	compaction := func(fields string) string {
		return `{"type":"compaction","time":"t","reason":"threshold"` + fields + "}\n"
	}
	const sum = `,"text":"the summary"`
	tests := map[string]struct {
		lines string
		want  string // the conversation's texts, role-prefixed, joined by " "
		n     int    // compactions applied
	}{
		"kept tail": {lines: conv + compaction(sum+`,"messages_kept":4`),
			want: "user:task user:S assistant:a2 user:u2 assistant:a3 user:u3", n: 1},
		"then more": {lines: conv + compaction(sum+`,"messages_kept":2`) + text("assistant", "a4") + text("user", "u4"),
			want: "user:task user:S assistant:a3 user:u3 assistant:a4 user:u4", n: 1},
		"twice": {lines: conv + compaction(sum+`,"messages_kept":4`) + text("assistant", "a4") + compaction(sum+`,"messages_kept":1`),
			want: "user:task user:S assistant:a4", n: 2},
		"kept nothing": {lines: conv + compaction(sum+`,"messages_kept":0`),
			want: "user:task user:S", n: 1},
		"tail would start with a user message": {lines: conv + compaction(sum+`,"messages_kept":3`),
			want: "user:task assistant:a1 user:u1 assistant:a2 user:u2 assistant:a3 user:u3"},
		"kept more than there is": {lines: conv + compaction(sum+`,"messages_kept":7`),
			want: "user:task assistant:a1 user:u1 assistant:a2 user:u2 assistant:a3 user:u3"},
		"no count (an older rubichan)": {lines: conv + compaction(sum),
			want: "user:task assistant:a1 user:u1 assistant:a2 user:u2 assistant:a3 user:u3"},
		"no summary": {lines: conv + compaction(`,"messages_kept":2`),
			want: "user:task assistant:a1 user:u1 assistant:a2 user:u2 assistant:a3 user:u3"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, err := Parse([]byte(header + tc.lines))
			if err != nil {
				t.Fatal(err)
			}
			msgs, _ := s.Conversation("anthropic", false)
			var got []string
			for _, m := range msgs {
				for _, b := range m.Content {
					txt := b.Text
					if strings.HasPrefix(txt, SummaryPreface) {
						txt = "S" // the summary stays a message of its own
						if rest := strings.TrimPrefix(b.Text, SummaryPreface); rest != "the summary" {
							txt = "S?" + rest
						}
					}
					got = append(got, string(m.Role)+":"+txt)
				}
			}
			if g := strings.Join(got, " "); g != tc.want {
				t.Errorf("conversation\n got %s\nwant %s", g, tc.want)
			}
			if len(msgs) != strings.Count(tc.want, ":") {
				t.Errorf("%d messages for %d blocks: the summary was merged into a neighbour", len(msgs), strings.Count(tc.want, ":"))
			}
			if s.Compactions != tc.n {
				t.Errorf("%d compactions applied, want %d", s.Compactions, tc.n)
			}
		})
	}
}
