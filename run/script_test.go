package run

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/rubichan/rubichan/run/agent/agenttest"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
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

// rubichanMain is main.go's wiring, so the scripts run the real program;
// RUBICHAN_TEST_LANDLOCK_ABI simulates another kernel's Landlock.
func rubichanMain() {
	_ = HardenProcess(os.Args)
	// As main.go: the signals are main's own code.
	sigs := NotifySignals(context.Background())
	env := processEnvironment()
	env.interrupts = sigs.Interrupts()
	env.LandlockABI = simulatedABI()
	env.Namespaces = simulatedNamespaces()
	// A script sets the day the system prompt shows, to replay a
	// cassette "next month".
	if d := os.Getenv("RUBICHAN_TEST_DATE"); d != "" {
		day, err := time.Parse(time.DateOnly, d)
		if err != nil {
			panic(err)
		}
		env.Now = func() time.Time { return day }
	}
	// A script shortens the heartbeat's first wait (30s in a real run).
	if d := os.Getenv("RUBICHAN_TEST_HEARTBEAT"); d != "" {
		hb, err := time.ParseDuration(d)
		if err != nil {
			panic(err)
		}
		env.Heartbeat = hb
	}
	code := runMain(sigs.Context(), os.Args, os.Stdin, os.Stdout, os.Stderr, env)
	sigs.Stop()
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
		Setup:               scriptSetup,
		Cmds:                servers.cmds(),
		// [root]: the script runs as root (CI containers often do).
		Condition: scriptCondition,
	})
}

// scriptSetup is the environment every script starts with.
func scriptSetup(env *testscript.Env) error {
	env.Setenv("ANTHROPIC_API_KEY", testAPIKey)
	env.Setenv("OPENAI_API_KEY", testAPIKey)
	env.Setenv("NO_COLOR", "")
	// A race-enabled program sleeps 1 s before it exits, so
	// that late reports can be printed; every script runs the
	// program several times, and the scripts' own checks come
	// after it has exited.
	env.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	// Session logs go inside the script's work directory, never
	// to $HOME (testscript's /no-home).
	env.Setenv("XDG_STATE_HOME", filepath.Join(env.WorkDir, ".state"))
	return nil
}

// scriptCondition answers [root]: the script runs as root.
func scriptCondition(cond string) (bool, error) {
	if cond == "root" {
		return os.Geteuid() == 0, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
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
	maps.Copy(cmds, s.sandboxScriptCmds())
	maps.Copy(cmds, telemetryScriptCmds())
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
		// requestsmax N: the server received at most N requests.
		"requestsmax": func(ts *testscript.TestScript, neg bool, args []string) {
			if neg || len(args) != 1 {
				ts.Fatalf("usage: requestsmax N")
			}
			most, err := strconv.Atoi(args[0])
			ts.Check(err)
			if got := len(s.get(ts).Requests()); got > most {
				ts.Fatalf("the model server received %d requests, want at most %d", got, most)
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
		"rc":           cmdRC,
		"genlines":     cmdGenLines,
		"signalafter":  cmdSignalAfter,
		"stdinlate":    cmdStdinLate,
		"pidgone":      cmdPidGone,
		"brokenstdout": cmdBrokenStdout,
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
		// treehash DIR FILE and nopatchtemp: see script_patch_test.go.
		"treehash":    cmdTreeHash,
		"nopatchtemp": cmdNoPatchTemp,
		// msgprefix, waitfile, sessionfiles: see session_script_test.go.
		"msgprefix":    s.cmdMsgPrefix,
		"waitfile":     cmdWaitFile,
		"sessionfiles": cmdSessionFiles,
		// events [-json]: see script_events_test.go.
		"events": cmdEvents,
		// toollines, replacein, cuttail: see cassette_script_test.go.
		"toollines": cmdToolLines,
		"replacein": cmdReplaceIn,
		"cuttail":   cmdCutTail,
		// overlap and ranbefore: see script_overlap_test.go.
		"overlap":   cmdOverlap,
		"ranbefore": cmdRanBefore,
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
	got := exitCodeOf(ts, ts.Exec(args[1], args[2:]...))
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
	// A careless server echoes the caller's key: in a header, and in the
	// body where the script says $APIKEY.
	key := r.Header.Get("x-api-key")
	if key == "" {
		key = strings.TrimPrefix(r.Header.Get("authorization"), "Bearer ")
	}
	w.Header().Set("x-echo", "you sent "+key)
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		// Cut the client's connection as the server cut ours.
		panic(http.ErrAbortHandler)
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	// The body may change ($SPILL, $APIKEY) and with it its length.
	w.Header().Del("content-length")
	w.WriteHeader(resp.StatusCode)
	flusher, _ := w.(http.Flusher)
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadString('\n')
		if spill != "" {
			line = strings.ReplaceAll(line, "$SPILL", spill)
		}
		line = strings.ReplaceAll(line, "$APIKEY", key)
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
		Input []json.RawMessage `json:"input"` // Responses API
		// The structured-output field of each wire.
		OutputConfig   struct{ Format json.RawMessage } `json:"output_config"`
		ResponseFormat json.RawMessage                  `json:"response_format"`
		Text           struct{ Format json.RawMessage } `json:"text"`
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
	for _, f := range []json.RawMessage{body.OutputConfig.Format, body.ResponseFormat, body.Text.Format} {
		if len(f) > 0 {
			fmt.Fprintf(w, "format: %s\n", f)
		}
	}
	for _, it := range body.Input {
		fmt.Fprintf(w, "input: %s\n", it)
	}
	for _, m := range body.Messages {
		var text string
		if json.Unmarshal(m.Content, &text) == nil {
			fmt.Fprintf(w, "%s text: %s\n", m.Role, text)
			continue
		}
		var blocks []agenttest.WireBlock
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
