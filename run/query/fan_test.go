package query

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/subquery"
)

// fakeAsker answers "q<i>" after a delay that shrinks with i, so that
// later requests finish first; a prompt "limit" is refused with a limit.
type fakeAsker struct{ sent atomic.Int32 }

func (f *fakeAsker) open(context.Context) (sender, error) { return f, nil }
func (f *fakeAsker) close()                               {}
func (f *fakeAsker) ask(ctx context.Context, req subquery.Request) (subquery.Response, error) {
	f.sent.Add(1)
	if req.Prompt == "limit" {
		return subquery.Response{Error: &subquery.Error{Code: subquery.CodeLimit, Message: "reached --max-cost"}}, nil
	}
	if req.Prompt == "interrupt" {
		return subquery.Response{Error: &subquery.Error{Code: subquery.CodeInterrupted, Message: "the run was interrupted"}}, nil
	}
	var i int
	fmt.Sscanf(req.Input, "q%d", &i)
	time.Sleep(time.Duration(20-i) * time.Millisecond)
	return subquery.Response{Text: "a" + req.Input[1:]}, nil
}

func TestBatchKeepsInputOrder(t *testing.T) {
	t.Parallel()
	var in strings.Builder
	for i := range 20 {
		fmt.Fprintf(&in, "{\"prompt\":\"p\",\"input\":\"q%d\"}\n", i)
	}
	var out, errw bytes.Buffer
	q := Options{Batch: true, Concurrency: 8}
	if err := run(context.Background(), q, &fakeAsker{}, strings.NewReader(in.String()), &out, &errw); err != nil {
		t.Fatalf("run: %v (%s)", err, errw.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 20 {
		t.Fatalf("got %d answer lines, want 20:\n%s", len(lines), out.String())
	}
	for i, l := range lines {
		var a answerLine
		if err := json.Unmarshal([]byte(l), &a); err != nil || a.Index != i || a.Text != fmt.Sprintf("a%d", i) {
			t.Fatalf("line %d = %s, want index %d text a%d", i, l, i, i)
		}
	}
}

func TestFanOutStopsAtLimit(t *testing.T) {
	t.Parallel()
	testFanOutStops(t, "limit", exit.Limit)
}

// TestFanOutStopsAtInterruption checks that a fan-out the run's
// interruption stopped exits 130, its unsent requests included, not 4.
func TestFanOutStopsAtInterruption(t *testing.T) {
	t.Parallel()
	testFanOutStops(t, "interrupt", 130)
}

// testFanOutStops sends 50 requests one at a time, the fourth answered
// with the error prompt asks for: nothing is sent after it, and the
// command exits with want.
func testFanOutStops(t *testing.T, prompt string, want int) {
	t.Helper()
	var in strings.Builder
	for i := range 50 {
		p := "p"
		if i == 3 {
			p = prompt
		}
		fmt.Fprintf(&in, "{\"prompt\":%q,\"input\":\"q%d\"}\n", p, i%20)
	}
	var out, errw bytes.Buffer
	f := &fakeAsker{}
	err := run(context.Background(), Options{Batch: true, Concurrency: 1}, f, strings.NewReader(in.String()), &out, &errw)
	if exit.Code(err) != want {
		t.Fatalf("exit %d (%v), want %d", exit.Code(err), err, want)
	}
	if n := f.sent.Load(); n != 4 {
		t.Fatalf("sent %d requests, want 4 (none after the %s)", n, prompt)
	}
}

func TestChunkRanges(t *testing.T) {
	t.Parallel()
	data := "aaaa\nbbbb\ncccccccccccccccc\ndd\n" // a 17-byte line longer than a chunk
	for _, tc := range []struct {
		data           string
		chunk, overlap int64
		want           string
	}{
		{"", 10, 0, "0+10 10+10 20+10"}, // the long line is cut where the chunk ends
		{"", 12, 0, "0+10 10+12 22+8"},
		{"", 100, 0, "0+30"},
		{"", 10, 5, "0+10 10+10 20+10"}, // no line starts in the overlap
		{"a\nb\nc\nd\ne\nf\n", 6, 3, "0+6 4+6 8+4"},
		{"a\nb\nc\nd\ne\nf\n", 6, 0, "0+6 6+6"},
	} {
		d := data
		if tc.data != "" {
			d = tc.data
		}
		var got []string
		err := chunkRanges(strings.NewReader(d), int64(len(d)), tc.chunk, tc.overlap, func(off, n int64) bool {
			got = append(got, fmt.Sprintf("%d+%d", off, n))
			return true
		})
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("chunk %d overlap %d: got %v (%v), want %s", tc.chunk, tc.overlap, got, err, tc.want)
		}
	}
}
