package toolkit

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// testGrace is the grace period of most tests: short, to keep them fast.
const testGrace = 300 * time.Millisecond

// newTestBash returns a bash tool rooted in a fresh directory, with a
// minimal environment and a short grace period; edit adjusts the config.
func newTestBash(t *testing.T, edit func(*BashConfig)) (*Bash, string) {
	t.Helper()
	dir := t.TempDir()
	cfg := BashConfig{
		Dir:         dir,
		Env:         []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LC_ALL=C", "GIT_CONFIG_NOSYSTEM=1"},
		GracePeriod: testGrace,
	}
	if edit != nil {
		edit(&cfg)
	}
	return NewBash(cfg), dir
}

// callBash runs command with the given timeout in seconds (0: the default).
func callBash(t *testing.T, ctx context.Context, b *Bash, command string, timeout float64) Result {
	t.Helper()
	args := map[string]any{"command": command}
	if timeout != 0 {
		args["timeout"] = timeout
	}
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.Run(ctx, raw)
	if err != nil {
		t.Fatalf("Run(%s) error: %v", raw, err)
	}
	return res
}

func TestBashNotStartedWhenAlreadyCancelled(t *testing.T) {
	t.Parallel()
	b, dir := newTestBash(t, nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	res := callBash(t, ctx, b, "touch ran", 0)
	if !res.IsError || res.Content != "[not started: context canceled]" {
		t.Errorf("result %+v, want not started", res)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); !os.IsNotExist(err) {
		t.Errorf("the command ran: stat = %v", err)
	}
}

// TestBashStdinIsEmpty runs the tool in a child test process whose own
// stdin is a pipe full of data that stays open: a command inheriting it
// would print the data and then block.
func TestBashStdinIsEmpty(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/self/fd/0")
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	if _, err := pw.WriteString("the agent's stdin\n"); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestHelperProcessBashStdin$", "-test.count=1")
	cmd.Env = append(os.Environ(), "RUBICHAN_BASH_STDIN_HELPER=1")
	cmd.Stdin = pr
	start := time.Now()
	out, err := cmd.Output()
	pr.Close()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	_, js, ok := strings.Cut(string(out), "RESULT:")
	if !ok {
		t.Fatalf("helper printed no result:\n%s", out)
	}
	var res Result
	if err := json.Unmarshal([]byte(strings.SplitN(js, "\n", 2)[0]), &res); err != nil {
		t.Fatal(err)
	}
	if res.IsError || res.Content != "EOF\n/dev/null\n" {
		t.Errorf("cat printed %q (error %v), want nothing, then stdin to be /dev/null", res.Content, res.IsError)
	}
	if elapsed := time.Since(start); elapsed > 4*time.Second {
		t.Errorf("took %v: cat waited on stdin", elapsed)
	}
}

// TestHelperProcessBashStdin is the child process of TestBashStdinIsEmpty;
// run directly it does nothing.
func TestHelperProcessBashStdin(t *testing.T) {
	if os.Getenv("RUBICHAN_BASH_STDIN_HELPER") != "1" {
		return
	}
	b, _ := newTestBash(t, nil)
	res := callBash(t, t.Context(), b, "cat; echo EOF; readlink /proc/self/fd/0", 5)
	js, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("RESULT:%s\n", js)
}

func TestBashManyCallsKeepAllOutput(t *testing.T) {
	t.Parallel()
	b, _ := newTestBash(t, nil)
	for i := range 500 {
		res := callBash(t, t.Context(), b, "echo "+strconv.Itoa(i), 0)
		if want := strconv.Itoa(i) + "\n"; res.Content != want || res.IsError {
			t.Fatalf("call %d: %+v, want exactly %q", i, res, want)
		}
	}
}

func TestBashConcurrentCalls(t *testing.T) {
	t.Parallel()
	b, _ := newTestBash(t, nil)
	var wg sync.WaitGroup
	errs := make(chan string, 80)
	for g := range 8 {
		wg.Go(func() {
			for i := range 10 {
				want := fmt.Sprintf("%d-%d\n", g, i)
				res, err := b.Run(t.Context(), json.RawMessage(fmt.Sprintf(`{"command":"echo %d-%d"}`, g, i)))
				if err != nil || res.Content != want {
					errs <- fmt.Sprintf("%q: %+v, %v", want, res, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestBashInterleavesStdoutAndStderr(t *testing.T) {
	t.Parallel()
	b, _ := newTestBash(t, nil)
	res := callBash(t, t.Context(), b, `i=1; while [ $i -le 300 ]; do echo out$i; echo err$i >&2; i=$((i+1)); done`, 0)
	var want strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&want, "out%d\nerr%d\n", i, i)
	}
	if res.IsError || res.Content != want.String() {
		t.Errorf("output out of order or incomplete (error %v):\n%.300s", res.IsError, res.Content)
	}
}

func TestBashCapsLargeOutput(t *testing.T) {
	t.Parallel()
	b, _ := newTestBash(t, nil)
	const body = 10 << 20
	res := callBash(t, t.Context(), b, fmt.Sprintf(`echo BEGIN; head -c %d /dev/zero | tr '\0' x; echo; echo END`, body), 0)
	total := len("BEGIN\n") + body + len("\nEND\n")
	half := bashOutputMax / 2
	note := fmt.Sprintf("\n\n[output cut: %d bytes (0 lines) omitted from the middle; showing the first %d and the last %d of %d bytes]\n\n",
		total-bashOutputMax, half, half, total)
	want := "BEGIN\n" + strings.Repeat("x", half-6) + note + strings.Repeat("x", half-5) + "\nEND\n"
	if res.Content != want {
		t.Errorf("content is %d bytes starting %.40q, want %d bytes with the note %q", len(res.Content), res.Content, len(want), note)
	}
	if res.IsError || !res.Meta.Truncated {
		t.Errorf("IsError %v, Truncated %v; want false, true", res.IsError, res.Meta.Truncated)
	}
}

func TestBashReplacesInvalidUTF8(t *testing.T) {
	t.Parallel()
	b, _ := newTestBash(t, nil)
	res := callBash(t, t.Context(), b, `printf 'a\377b \303\251\n'`, 0)
	if want := "a\uFFFDb é\n"; res.Content != want || res.IsError {
		t.Errorf("result %+v, want content %q", res, want)
	}
}

func TestBashNonZeroExit(t *testing.T) {
	t.Parallel()
	b, _ := newTestBash(t, nil)
	res := callBash(t, t.Context(), b, "echo oops; exit 3", 0)
	if !res.IsError || res.Meta.ExitCode == nil || *res.Meta.ExitCode != 3 || res.Content != "oops\n[exit code 3]" {
		t.Errorf("result %+v, want an error result with exit code 3", res)
	}
	res = callBash(t, t.Context(), b, "printf partial; exit 1", 0)
	if res.Content != "partial\n[exit code 1]" {
		t.Errorf("content %q, want the note on its own line", res.Content)
	}
}

func TestBashKilledBySignal(t *testing.T) {
	t.Parallel()
	b, _ := newTestBash(t, nil)
	res := callBash(t, t.Context(), b, "echo before; kill -9 $$", 0)
	if !res.IsError || res.Meta.ExitCode != nil || res.Content != "before\n[signal: killed]" {
		t.Errorf("result %+v, want an error result with no exit code", res)
	}
}

func TestBashWorkingDirectory(t *testing.T) {
	t.Parallel()
	b, dir := newTestBash(t, nil)
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	res := callBash(t, t.Context(), b, `pwd -P; echo "$PWD"`, 0)
	if want := real + "\n" + dir + "\n"; res.Content != want {
		t.Errorf("content %q, want %q", res.Content, want)
	}
}

func TestBashStartFailureIsAnError(t *testing.T) {
	t.Parallel()
	for name, edit := range map[string]func(*BashConfig){
		"missing dir":   func(c *BashConfig) { c.Dir = filepath.Join(c.Dir, "gone") },
		"missing shell": func(c *BashConfig) { c.Shell = filepath.Join(c.Dir, "no-such-shell") },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, _ := newTestBash(t, edit)
			res, err := b.Run(t.Context(), json.RawMessage(`{"command":"true"}`))
			if err == nil || !strings.HasPrefix(err.Error(), "bash: start ") {
				t.Errorf("Run = %+v, %v; want a bash: start error", res, err)
			}
		})
	}
}

func TestBashArguments(t *testing.T) {
	t.Parallel()
	b, dir := newTestBash(t, func(c *BashConfig) { c.DefaultTimeout = 30 * time.Second; c.MaxTimeout = time.Minute })
	tests := map[string]struct {
		args    string
		timeout time.Duration
		err     string
	}{
		"command only":      {args: `{"command":"ls -la"}`, timeout: 30 * time.Second},
		"zero timeout":      {args: `{"command":"ls -la","timeout":0}`, timeout: 30 * time.Second},
		"fractional":        {args: `{"command":"ls -la","timeout":1.5}`, timeout: 1500 * time.Millisecond},
		"over the maximum":  {args: `{"command":"ls -la","timeout":1e300}`, timeout: time.Minute},
		"extra field":       {args: `{"command":"ls -la","description":"list"}`, timeout: 30 * time.Second},
		"not json":          {args: `ls -la`, err: "bash: invalid arguments: "},
		"two values":        {args: `{"command":"a"}{"command":"b"}`, err: "bash: invalid arguments: more than one JSON value"},
		"no command":        {args: `{}`, err: "bash: command is required"},
		"blank command":     {args: `{"command":" \n"}`, err: "bash: command is required"},
		"negative timeout":  {args: `{"command":"ls -la","timeout":-1}`, err: "bash: timeout must be a positive number of seconds, got -1"},
		"timeout as string": {args: `{"command":"ls -la","timeout":"5"}`, err: "bash: invalid arguments: "},
		"timeout below 1ns": {args: `{"command":"ls -la","timeout":1e-12}`, err: "bash: timeout must be a positive number of seconds, got 1e-12"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, timeout, err := b.decode(json.RawMessage(tc.args))
			eff, effErr := b.Effects(json.RawMessage(tc.args))
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) || effErr == nil || effErr.Error() != err.Error() {
					t.Fatalf("decode error %v, Effects error %v; want %q", err, effErr, tc.err)
				}
				res, runErr := b.Run(t.Context(), json.RawMessage(tc.args))
				if runErr != nil || !res.IsError || res.Content != err.Error() {
					t.Errorf("Run = %+v, %v; want an error result saying %q", res, runErr, err)
				}
				return
			}
			if err != nil || effErr != nil {
				t.Fatalf("decode error %v, Effects error %v", err, effErr)
			}
			if timeout != tc.timeout {
				t.Errorf("timeout %v, want %v", timeout, tc.timeout)
			}
			if want := (Effects{Kind: EffectExecute, Command: "ls -la", Dir: dir}); eff.Kind != want.Kind || eff.Command != want.Command || eff.Dir != want.Dir || eff.Paths != nil {
				t.Errorf("Effects = %+v, want %+v", eff, want)
			}
		})
	}
}

func TestBashSpec(t *testing.T) {
	t.Parallel()
	b, _ := newTestBash(t, nil)
	s := b.Spec()
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(s.Schema, &schema); err != nil {
		t.Fatalf("schema %s: %v", s.Schema, err)
	}
	if s.Name != "bash" || schema.Type != "object" || len(schema.Properties) != 2 ||
		schema.Properties["command"] == nil || schema.Properties["timeout"] == nil ||
		len(schema.Required) != 1 || schema.Required[0] != "command" {
		t.Errorf("spec %q with schema %s", s.Name, s.Schema)
	}
	for _, want := range []string{"default 120, at most 600"} {
		if !strings.Contains(string(s.Schema), want) {
			t.Errorf("schema %s lacks %q", s.Schema, want)
		}
	}
	for _, want := range []string{"120 when not given, at most 600", "SIGKILL 0.3 seconds later", "Output beyond 30 KB"} {
		if !strings.Contains(s.Description, want) {
			t.Errorf("description lacks %q:\n%s", want, s.Description)
		}
	}
	if strings.Contains(s.Description, "{{") {
		t.Errorf("description has an unfilled placeholder:\n%s", s.Description)
	}
}

func TestNewBashDefaults(t *testing.T) {
	t.Parallel()
	b := NewBash(BashConfig{Dir: "rel", Env: []string{"PATH=relative:" + os.Getenv("PATH")}})
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if b.dir != filepath.Join(wd, "rel") || b.defTO != BashDefaultTimeout || b.maxTO != BashMaxTimeout || b.grace != BashGracePeriod {
		t.Errorf("NewBash defaults: dir %q timeout %v max %v grace %v", b.dir, b.defTO, b.maxTO, b.grace)
	}
	if !filepath.IsAbs(b.shell) || (filepath.Base(b.shell) != "bash" && filepath.Base(b.shell) != "sh") {
		t.Errorf("shell %q, want an absolute bash or sh", b.shell)
	}
	capped := NewBash(BashConfig{DefaultTimeout: time.Hour, MaxTimeout: time.Minute})
	if capped.defTO != time.Minute {
		t.Errorf("default timeout %v above the maximum %v", capped.defTO, capped.maxTO)
	}
}

func TestFindShell(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"bin1/sh", "bin2/bash", "bin3/bash"} {
		p := filepath.Join(dir, name)
		mode := os.FileMode(0o755)
		if name == "bin3/bash" {
			mode = 0o644 // not executable
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, mode); err != nil {
			t.Fatal(err)
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, filepath.Join(dir, "bin2"))
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		filepath.Join(dir, "bin1") + ":" + filepath.Join(dir, "bin2"): filepath.Join(dir, "bin2", "bash"),
		filepath.Join(dir, "bin3") + ":" + filepath.Join(dir, "bin1"): filepath.Join(dir, "bin1", "sh"),
		rel + ":" + filepath.Join(dir, "bin1"):                        filepath.Join(dir, "bin1", "sh"),
		"":                                                            "/bin/sh",
	} {
		if got := findShell([]string{"PATH=/nowhere", "PATH=" + path}); got != want {
			t.Errorf("findShell(PATH=%s) = %q, want %q", path, got, want)
		}
	}
}

// BenchmarkBashTrue measures one call's overhead, from spawn to result.
func BenchmarkBashTrue(b *testing.B) {
	tool := NewBash(BashConfig{Dir: b.TempDir(), Env: []string{"PATH=" + os.Getenv("PATH")}})
	args := json.RawMessage(`{"command":"true"}`)
	b.ReportAllocs()
	for b.Loop() {
		res, err := tool.Run(b.Context(), args)
		if err != nil || res.IsError {
			b.Fatalf("Run = %+v, %v", res, err)
		}
	}
}

// BenchmarkBashTrueBaseline runs the same shell with plain os/exec, for
// comparison: the difference is the tool's own cost (environment, process
// group, pipe, waitid, result).
func BenchmarkBashTrueBaseline(b *testing.B) {
	shell := findShell([]string{"PATH=" + os.Getenv("PATH")})
	b.ReportAllocs()
	for b.Loop() {
		if err := exec.Command(shell, "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzBashArguments checks that any arguments either decode to a non-empty
// command with a timeout in (0, max], agreeing with Effects, or are
// refused by both with the same message.
func FuzzBashArguments(f *testing.F) {
	for _, s := range []string{`{"command":"ls"}`, `{"command":"x","timeout":1e-9}`, `{"command":"","timeout":5}`, `[1]`, `{"timeout":-0}`} {
		f.Add([]byte(s))
	}
	b := NewBash(BashConfig{Dir: "/", MaxTimeout: time.Minute})
	f.Fuzz(func(t *testing.T, args []byte) {
		p, timeout, err := b.decode(args)
		eff, effErr := b.Effects(args)
		if err != nil {
			if effErr == nil || effErr.Error() != err.Error() {
				t.Fatalf("decode error %v, Effects error %v", err, effErr)
			}
			return
		}
		if effErr != nil || eff.Command != p.Command || eff.Kind != EffectExecute || eff.Dir != "/" {
			t.Fatalf("Effects = %+v, %v for %+v", eff, effErr, p)
		}
		if strings.TrimSpace(p.Command) == "" || timeout <= 0 || timeout > time.Minute {
			t.Fatalf("accepted command %q with timeout %v", p.Command, timeout)
		}
	})
}
