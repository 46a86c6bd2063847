package run

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rubichan/rubichan/llm/llmtest"
)

var update = flag.Bool("update", false, "rewrite the files that cmp compares in testdata/script")

// testAPIKey is the key every script runs with; no output may show it.
const testAPIKey = "sk-ant-test-KEY-must-never-be-printed"

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"rubichan": rubichanMain})
}

// rubichanMain is main.go's wiring, so the scripts run the real program.
func rubichanMain() {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		for sig := range sigs {
			cancel(SignalError{Signal: sig})
		}
	}()
	code := Main(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
	signal.Stop(sigs)
	cancel(nil)
	os.Exit(code)
}

// TestScript runs the end-to-end scripts in testdata/script against the
// rubichan program and a scripted model server (see scriptCmds).
func TestScript(t *testing.T) {
	t.Parallel()
	servers := &serverSet{m: map[*testscript.TestScript]*scriptServer{}}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "testdata", "script"),
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("ANTHROPIC_API_KEY", testAPIKey)
			env.Setenv("OPENAI_API_KEY", testAPIKey)
			env.Setenv("NO_COLOR", "")
			// Session logs go inside the script's work directory, never
			// to $HOME (testscript's /no-home).
			env.Setenv("XDG_STATE_HOME", filepath.Join(env.WorkDir, ".state"))
			return nil
		},
		Cmds: servers.cmds(),
	})
}

// serverSet keeps the model server of each running script.
type serverSet struct {
	mu sync.Mutex
	m  map[*testscript.TestScript]*scriptServer
}

func (s *serverSet) get(ts *testscript.TestScript) *scriptServer {
	s.mu.Lock()
	defer s.mu.Unlock()
	srv := s.m[ts]
	if srv == nil {
		ts.Fatalf("no llmserver started in this script")
	}
	return srv
}

func (s *serverSet) cmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	cmds := s.serverCmds()
	maps.Copy(cmds, ptyScriptCmds())
	return cmds
}

func (s *serverSet) serverCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		// llmserver SCRIPT.json: serve the scripted model; sets
		// ANTHROPIC_BASE_URL and OPENAI_BASE_URL.
		"llmserver": func(ts *testscript.TestScript, neg bool, args []string) {
			if neg || len(args) != 1 {
				ts.Fatalf("usage: llmserver SCRIPT.json")
			}
			script, err := llmtest.ParseScript([]byte(ts.ReadFile(args[0])))
			ts.Check(err)
			srv := newScriptServer(script)
			ts.Defer(srv.Close)
			s.mu.Lock()
			s.m[ts] = srv
			s.mu.Unlock()
			ts.Setenv("ANTHROPIC_BASE_URL", srv.URL())
			ts.Setenv("OPENAI_BASE_URL", srv.URL()+"/v1")
		},
		// requests N: the server received exactly N requests.
		"requests": func(ts *testscript.TestScript, neg bool, args []string) {
			if neg || len(args) != 1 {
				ts.Fatalf("usage: requests N")
			}
			want, err := strconv.Atoi(args[0])
			ts.Check(err)
			if got := len(s.get(ts).Requests()); got != want {
				ts.Fatalf("the model server received %d requests, want %d", got, want)
			}
		},
		// request N: print request N (from 1) in a readable form on stdout.
		"request": func(ts *testscript.TestScript, neg bool, args []string) {
			if neg || len(args) != 1 {
				ts.Fatalf("usage: request N")
			}
			n, err := strconv.Atoi(args[0])
			ts.Check(err)
			reqs := s.get(ts).Requests()
			if n < 1 || n > len(reqs) {
				ts.Fatalf("request %d of %d", n, len(reqs))
			}
			ts.Check(renderRequest(ts.Stdout(), reqs[n-1]))
		},
		"rc":          cmdRC,
		"genlines":    cmdGenLines,
		"signalafter": cmdSignalAfter,
		"stdinlate":   cmdStdinLate,
		"pidgone":     cmdPidGone,
		"nostdinspill": func(ts *testscript.TestScript, neg bool, args []string) {
			matches, err := filepath.Glob(filepath.Join(ts.Getenv("TMPDIR"), "rubichan-stdin-*"))
			ts.Check(err)
			if len(matches) > 0 {
				ts.Fatalf("spill directories left behind: %q", matches)
			}
		},
		// header N NAME and expandfile SRC DST: see script_config_test.go.
		"header":     s.cmdHeader,
		"expandfile": cmdExpandFile,
		// sessionlog [-partial] DIR: see session_script_test.go.
		"sessionlog": cmdSessionLog,
	}
}

// cmdRC runs a program like exec and checks its exact exit code:
// rc CODE PROGRAM [ARGS...].
func cmdRC(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: rc CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("%v", err)
	}
	if got != want {
		ts.Fatalf("exit code %d, want %d", got, want)
	}
}

// cmdGenLines writes a file of N numbered lines with NEEDLE on line AT:
// genlines FILE N AT NEEDLE.
func cmdGenLines(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: genlines FILE N AT NEEDLE")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	at, err := strconv.Atoi(args[2])
	ts.Check(err)
	f, err := os.Create(ts.MkAbs(args[0]))
	ts.Check(err)
	w := bufio.NewWriter(f)
	for i := 1; i <= n; i++ {
		if i == at {
			fmt.Fprintf(w, "%s\n", args[3])
			continue
		}
		fmt.Fprintf(w, "%08d the quick brown fox jumps over the lazy dog again and again\n", i)
	}
	ts.Check(w.Flush())
	ts.Check(f.Close())
}

// cmdSignalAfter starts PROGRAM, waits until FILE exists and is not
// empty, sends the signal (INT, TERM or KILL) and checks the exit code
// (-1 for a process killed by a signal it cannot catch):
// signalafter SIGNAL FILE CODE PROGRAM [ARGS...]. The program's output
// becomes the script's stdout and stderr.
func cmdSignalAfter(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 4 {
		ts.Fatalf("usage: signalafter INT|TERM|KILL FILE CODE PROGRAM [ARGS...]")
	}
	sig, ok := map[string]syscall.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM, "KILL": syscall.SIGKILL}[args[0]]
	if !ok {
		ts.Fatalf("unknown signal %s", args[0])
	}
	args = args[1:]
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	// The registered commands live in the script's PATH, not the test's.
	prog, err := lookPathIn(args[2], ts.Getenv("PATH"))
	ts.Check(err)
	cmd := exec.Command(prog, args[3:]...)
	cmd.Dir = ts.MkAbs(".")
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "WORK", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "XDG_STATE_HOME"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	ts.Check(cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	ready := ts.MkAbs(args[0])
	deadline := time.Now().Add(30 * time.Second)
	for {
		if fi, err := os.Stat(ready); err == nil && fi.Size() > 0 {
			break
		}
		select {
		case err := <-done:
			ts.Fatalf("program ended before %s appeared: %v\n%s", args[0], err, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			ts.Fatalf("%s did not appear within 30s", args[0])
		}
	}
	ts.Check(cmd.Process.Signal(sig))
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		ts.Fatalf("program did not exit within 30s of %v", sig)
	}
	io.Copy(ts.Stdout(), &stdout)
	io.Copy(ts.Stderr(), &stderr)
	got := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit code %d after %v, want %d\n%s", got, sig, want, stderr.String())
	}
}

// cmdStdinLate runs PROGRAM with a pipe on stdin that stays silent until
// the program says on stderr that it waits for it, then writes TEXT and
// closes the pipe: stdinlate TEXT PROGRAM [ARGS...]. The exit code must be
// 0; the program's output becomes the script's stdout and stderr.
func cmdStdinLate(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: stdinlate TEXT PROGRAM [ARGS...]")
	}
	prog, err := lookPathIn(args[1], ts.Getenv("PATH"))
	ts.Check(err)
	cmd := exec.Command(prog, args[2:]...)
	cmd.Dir = ts.MkAbs(".")
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "XDG_STATE_HOME"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	stdin, err := cmd.StdinPipe()
	ts.Check(err)
	var stdout bytes.Buffer
	stderr := &notifyingBuffer{want: "waiting for standard input", seen: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	ts.Check(cmd.Start())
	select {
	case <-stderr.seen:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		ts.Fatalf("no waiting notice within 20s:\n%s", stderr.String())
	}
	io.WriteString(stdin, args[0])
	stdin.Close()
	err = cmd.Wait()
	fmt.Fprint(ts.Stdout(), stdout.String())
	fmt.Fprint(ts.Stderr(), stderr.String())
	ts.Check(err)
}

// notifyingBuffer collects output and closes seen once it holds want.
type notifyingBuffer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
	done bool
}

func (b *notifyingBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if !b.done && strings.Contains(b.buf.String(), b.want) {
		b.done = true
		close(b.seen)
	}
	return len(p), nil
}

func (b *notifyingBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func lookPathIn(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found in PATH", name)
}

// cmdPidGone checks that the process whose pid FILE holds is gone (or a
// zombie waiting for a reaper): pidgone FILE.
func cmdPidGone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: pidgone FILE")
	}
	pid, err := strconv.Atoi(strings.TrimSpace(ts.ReadFile(args[0])))
	ts.Check(err)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if !processAlive(pid) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("process %d is still running", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func processAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !os.IsNotExist(err)
	}
	// The state follows the parenthesised command name.
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}

// scriptServer is an llmtest server behind a small proxy that replaces
// $SPILL in the model's answers with the spill path named in the last
// request, so a script can make the model read the spilled stdin file
// whose name is random.
type scriptServer struct {
	*llmtest.Server
	proxy *httptest.Server

	mu    sync.Mutex
	spill string
}

var spillPathRE = regexp.MustCompile(`(?:<|\\u003c)stdin path=\\"([^"\\]+)\\"`)

func newScriptServer(script llmtest.Script) *scriptServer {
	s := &scriptServer{Server: llmtest.NewServer(script)}
	s.proxy = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

func (s *scriptServer) URL() string { return s.proxy.URL }

func (s *scriptServer) Close() {
	s.proxy.Close()
	s.Server.Close()
}

func (s *scriptServer) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	if m := spillPathRE.FindSubmatch(body); m != nil {
		s.spill = string(m[1])
	}
	spill := s.spill
	s.mu.Unlock()
	req, err := http.NewRequestWithContext(r.Context(), r.Method, s.Server.URL()+r.URL.Path, bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	req.Header = r.Header.Clone()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		// Cut the client's connection as the server cut ours.
		panic(http.ErrAbortHandler)
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	flusher, _ := w.(http.Flusher)
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadString('\n')
		if spill != "" {
			line = strings.ReplaceAll(line, "$SPILL", spill)
		}
		if _, werr := io.WriteString(w, line); werr != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			panic(http.ErrAbortHandler)
		}
	}
}

// renderRequest writes a recorded Anthropic or OpenAI request as lines a
// script can match: the model, the system prompt, the tool names, then one
// line per content block ("user text: ...", "assistant tool_use ID NAME
// INPUT", "user tool_result ID [error] CONTENT").
func renderRequest(w io.Writer, r llmtest.Request) error {
	var body struct {
		Model    string          `json:"model"`
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name     string `json:"name"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := r.JSON(&body); err != nil {
		return err
	}
	fmt.Fprintf(w, "path: %s\nmodel: %s\n", r.Path, body.Model)
	var sys string
	if json.Unmarshal(body.System, &sys) != nil {
		var blocks []struct{ Text string }
		json.Unmarshal(body.System, &blocks)
		for _, b := range blocks {
			sys += b.Text
		}
	}
	if sys != "" {
		fmt.Fprintf(w, "system: %s\n", sys)
	}
	var names []string
	for _, t := range body.Tools {
		names = append(names, t.Name+t.Function.Name)
	}
	fmt.Fprintf(w, "tools: %s\n", strings.Join(names, " "))
	for _, m := range body.Messages {
		var text string
		if json.Unmarshal(m.Content, &text) == nil {
			fmt.Fprintf(w, "%s text: %s\n", m.Role, text)
			continue
		}
		var blocks []struct {
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
			ToolUseID string          `json:"tool_use_id"`
			Content   string          `json:"content"`
			IsError   bool            `json:"is_error"`
		}
		if err := json.Unmarshal(m.Content, &blocks); err != nil {
			return err
		}
		for _, b := range blocks {
			switch b.Type {
			case "text":
				fmt.Fprintf(w, "%s text: %s\n", m.Role, b.Text)
			case "tool_use":
				fmt.Fprintf(w, "%s tool_use %s %s %s\n", m.Role, b.ID, b.Name, b.Input)
			case "tool_result":
				mark := ""
				if b.IsError {
					mark = "error "
				}
				fmt.Fprintf(w, "%s tool_result %s %s%s\n", m.Role, b.ToolUseID, mark, b.Content)
			default:
				fmt.Fprintf(w, "%s %s\n", m.Role, b.Type)
			}
		}
	}
	return nil
}
