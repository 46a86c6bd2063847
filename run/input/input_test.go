package input

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rubichan/rubichan/run/exit"
)

func TestReadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	promptFile := filepath.Join(dir, "task.md")
	if err := os.WriteFile(promptFile, []byte("from the file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	blankFile := filepath.Join(dir, "blank.md")
	if err := os.WriteFile(blankFile, []byte(" \n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		opt     Options
		stdin   io.Reader
		want    string
		wantErr bool   // a usage error
		errHas  string // a part of its message, when set
	}{
		"args only":           {opt: Options{Args: []string{"fix", "it"}}, want: "fix it"},
		"stdin and args":      {opt: Options{Args: []string{"why?"}}, stdin: strings.NewReader("log line\n"), want: "<stdin>\nlog line\n</stdin>\n\nwhy?"},
		"stdin no newline":    {opt: Options{Args: []string{"why?"}}, stdin: strings.NewReader("x"), want: "<stdin>\nx\n</stdin>\n\nwhy?"},
		"stdin alone":         {stdin: strings.NewReader("do this\n"), want: "do this\n"},
		"dash":                {opt: Options{Args: []string{"-"}}, stdin: strings.NewReader("the task"), want: "the task"},
		"empty stdin":         {opt: Options{Args: []string{"go"}}, stdin: strings.NewReader(""), want: "go"},
		"no-stdin":            {opt: Options{Args: []string{"go"}, NoStdin: true}, stdin: strings.NewReader("ignored"), want: "go"},
		"prompt file":         {opt: Options{PromptFile: promptFile}, want: "from the file"},
		"prompt file + stdin": {opt: Options{PromptFile: promptFile}, stdin: strings.NewReader("data"), want: "<stdin>\ndata\n</stdin>\n\nfrom the file"},
		"neither":             {stdin: strings.NewReader(""), wantErr: true},
		"nil stdin, no args":  {wantErr: true},
		"blank args":          {opt: Options{Args: []string{" ", ""}}, wantErr: true},
		"dash without stdin":  {opt: Options{Args: []string{"-"}}, wantErr: true},
		"dash with no-stdin":  {opt: Options{Args: []string{"-"}, NoStdin: true}, stdin: strings.NewReader("x"), wantErr: true},
		"dash empty stdin":    {opt: Options{Args: []string{"-"}}, stdin: strings.NewReader(""), wantErr: true},
		// Blank stdin is no input: as the prompt it would be a request
		// every provider rejects (exit 5); beside a prompt, an empty block.
		"blank stdin alone":      {stdin: strings.NewReader(" \r\n\n\t"), wantErr: true, errHas: "no prompt"},
		"dash blank stdin":       {opt: Options{Args: []string{"-"}}, stdin: strings.NewReader("\n\n"), wantErr: true, errHas: "stdin was empty"},
		"blank stdin and prompt": {opt: Options{Args: []string{"go"}}, stdin: strings.NewReader("\n \n"), want: "go"},
		"dash and words":         {opt: Options{Args: []string{"-", "more"}}, stdin: strings.NewReader("x"), wantErr: true},
		"file and args":          {opt: Options{Args: []string{"x"}, PromptFile: promptFile}, wantErr: true},
		"missing prompt file":    {opt: Options{PromptFile: filepath.Join(dir, "nope")}, wantErr: true},
		"blank prompt file":      {opt: Options{PromptFile: blankFile}, wantErr: true, errHas: "blank.md is empty"},
		// An empty task file is a mistake upstream, not "stdin is the task".
		"blank prompt file + stdin": {opt: Options{PromptFile: blankFile}, stdin: strings.NewReader("data"), wantErr: true, errHas: "blank.md is empty"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			in, err := Read(tc.stdin, tc.opt)
			if tc.wantErr {
				var ue exit.UsageError
				if !errors.As(err, &ue) {
					t.Fatalf("Read = %+v, %v; want a usage error", in, err)
				}
				if !strings.Contains(err.Error(), tc.errHas) {
					t.Errorf("error %q does not say %q", err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			if in.Text != tc.want || in.Spill != nil {
				t.Fatalf("text = %q (spill %v), want %q", in.Text, in.Spill, tc.want)
			}
		})
	}
}

func TestStdinUsable(t *testing.T) {
	t.Parallel()
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	regular, err := os.CreateTemp(t.TempDir(), "in")
	if err != nil {
		t.Fatal(err)
	}
	defer regular.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	var nilFile *os.File
	tests := map[string]struct {
		r    io.Reader
		want bool
	}{
		"nil":          {nil, false},
		"/dev/null":    {devNull, false},
		"regular file": {regular, true},
		"pipe":         {pr, true},
		"buffer":       {strings.NewReader(""), true},
		"nil *os.File": {nilFile, false},
	}
	for name, tc := range tests {
		if got := StdinUsable(tc.r); got != tc.want {
			t.Errorf("%s: StdinUsable = %v, want %v", name, got, tc.want)
		}
	}
}

func TestWaitingForStdinNotice(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	notices := make(chan string, 2)
	done := make(chan *Input, 1)
	go func() {
		in, err := Read(pr, Options{
			Args:   []string{"summarize"},
			Wait:   time.Millisecond,
			Notice: func(s string) { notices <- s },
		})
		if err != nil {
			t.Error(err)
		}
		done <- in
	}()
	select {
	case n := <-notices:
		if !strings.Contains(n, "waiting for standard input") || !strings.Contains(n, "--no-stdin") {
			t.Errorf("notice = %q", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no notice while stdin stayed silent")
	}
	pw.Write([]byte("late data"))
	pw.Close()
	select {
	case in := <-done:
		if in == nil || in.Text != "<stdin>\nlate data\n</stdin>\n\nsummarize" {
			t.Fatalf("input = %+v", in)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Read did not return after stdin closed")
	}
	if len(notices) != 0 {
		t.Errorf("notice given more than once")
	}
}

func TestNoNoticeWhenStdinIsQuick(t *testing.T) {
	t.Parallel()
	var notices []string
	in, err := Read(strings.NewReader("data"), Options{
		Args:   []string{"x"},
		Wait:   time.Hour,
		Notice: func(s string) { notices = append(notices, s) },
	})
	if err != nil || in.Text == "" || len(notices) != 0 {
		t.Fatalf("input %+v, err %v, notices %q", in, err, notices)
	}
}

func TestReadInputContextGivesUp(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := ReadContext(ctx, pr, Options{Args: []string{"x"}})
		done <- err
	}()
	cancel(exit.SignalError{Signal: syscall.SIGINT})
	select {
	case err := <-done:
		var sig exit.SignalError
		if !errors.As(err, &sig) {
			t.Fatalf("err = %v, want the signal", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ReadContext kept waiting for stdin after the context ended")
	}
}

func TestReadInputContextRemovesAbandonedSpill(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	spilling := make(chan struct{})
	go func() {
		// More than the inline limit, then silence: the spill has started.
		pw.Write(make([]byte, 20))
		close(spilling)
	}()
	done := make(chan error, 1)
	go func() {
		_, err := ReadContext(ctx, pr, Options{Args: []string{"x"}, InlineMax: 10, TempDir: tmp})
		done <- err
	}()
	<-spilling
	deadline := time.Now().Add(10 * time.Second)
	for {
		if m, _ := filepath.Glob(filepath.Join(tmp, "rubichan-stdin-*")); len(m) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the spill directory never appeared")
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(tmp, "rubichan-stdin-*")); len(m) != 0 {
		t.Errorf("abandoned spill left behind: %q", m)
	}
	pw.Close()
}
