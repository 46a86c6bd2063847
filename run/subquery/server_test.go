package subquery

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// helperEnv makes the test binary a sub-query client: it connects to the
// socket it names, asks once and prints the response as JSON.
const helperEnv = "SUBQUERY_TEST_HELPER_SOCKET"

// helperTwiceEnv makes the helper ask once, wait for a line on its stdin,
// then ask again on the same connection.
const helperTwiceEnv = "SUBQUERY_TEST_HELPER_TWICE"

func TestMain(m *testing.M) {
	if path := os.Getenv(helperEnv); path != "" {
		cl, err := Dial(context.Background(), path, os.Getenv(TokenEnv))
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		if os.Getenv(helperTwiceEnv) != "" {
			// Ask, wait for a line on stdin, ask again on the same
			// connection.
			resp, _ := cl.Ask(context.Background(), Request{Prompt: "first"})
			json.NewEncoder(os.Stdout).Encode(resp)
			bufio.NewReader(os.Stdin).ReadString('\n')
		}
		resp, err := cl.Ask(context.Background(), Request{Prompt: "from the helper"})
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		json.NewEncoder(os.Stdout).Encode(resp)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func startServer(t *testing.T, h Handler) *Server {
	t.Helper()
	s, err := Listen(t.TempDir(), h)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Serve(ctx); close(done) }()
	t.Cleanup(func() { cancel(); s.Close(); <-done })
	return s
}

func TestRoundTripInOrder(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(_ context.Context, peer int, req Request) Response {
		return Response{Text: strings.ToUpper(req.Prompt) + "|" + req.Input, Model: "m"}
	})
	if fi, err := os.Stat(s.Path()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode: %v %v", fi, err)
	}
	cl, err := Dial(context.Background(), s.Path(), s.Token())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for i := range 3 {
		resp, err := cl.Ask(context.Background(), Request{Prompt: fmt.Sprintf("q%d", i), Input: strings.Repeat("x", i*100000)})
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("Q%d|%s", i, strings.Repeat("x", i*100000)); resp.Text != want {
			t.Fatalf("answer %d: got %.40q", i, resp.Text)
		}
	}
}

func TestClientGoneCancelsRequest(t *testing.T) {
	t.Parallel()
	cancelled := make(chan struct{})
	started := make(chan struct{})
	s := startServer(t, func(ctx context.Context, _ int, _ Request) Response {
		close(started)
		select {
		case <-ctx.Done():
			close(cancelled)
		case <-time.After(10 * time.Second):
		}
		return Response{}
	})
	cl, err := Dial(context.Background(), s.Path(), s.Token())
	if err != nil {
		t.Fatal(err)
	}
	go cl.Ask(context.Background(), Request{Prompt: "slow"})
	<-started
	cl.Close()
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the handler's context did not end when the client went away")
	}
}

// TestNestedRefused: a process whose ancestor has a sub-query in flight
// is refused (depth 1); the same process's own further requests are not.
func TestNestedRefused(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peer credentials are checked on Linux")
	}
	s, release := startHoldingServer(t)
	cl, err := Dial(context.Background(), s.Path(), s.Token())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	held := make(chan Response, 1)
	go func() { r, _ := cl.Ask(context.Background(), Request{Prompt: "hold"}); held <- r }()
	awaitInFlight(t, s)
	resp := runHelper(t, s)
	if resp.Error == nil || resp.Error.Code != CodeRefused || !strings.Contains(resp.Error.Message, "depth 1") {
		t.Fatalf("a child of a client with a sub-query in flight got %+v, want refused (depth 1)", resp)
	}
	close(release)
	if r := <-held; r.Text != "ok hold" {
		t.Fatalf("held request: %+v", r)
	}
	// With nothing in flight, the same child is a plain descendant.
	if resp := runHelper(t, s); resp.Error != nil || resp.Text != "ok from the helper" {
		t.Fatalf("a descendant with nothing in flight: %+v", resp)
	}
}

// TestNonDescendantRefused: a process that does not descend from the
// server's owner is refused.
func TestNonDescendantRefused(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peer credentials are checked on Linux")
	}
	s, err := Listen(t.TempDir(), func(context.Context, int, Request) Response { return Response{Text: "answered"} })
	if err != nil {
		t.Fatal(err)
	}
	s.owner = 1 << 30 // a pid no process has: nobody descends from it
	go s.Serve(context.Background())
	defer s.Close()
	resp := runHelper(t, s)
	if resp.Error == nil || !strings.Contains(resp.Error.Message, "not a descendant") {
		t.Fatalf("got %+v, want refused: not a descendant", resp)
	}
}

func runHelper(t *testing.T, s *Server) Response {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+s.Path(), TokenEnv+"="+s.Token())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper: %v: %s", err, out)
	}
	var resp Response
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("helper output %q: %v", out, err)
	}
	return resp
}

func TestParentPID(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc")
	}
	chain, err := ancestors(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if len(chain) < 2 || chain[1] != os.Getppid() {
		t.Fatalf("ancestors(%d) = %v, want the parent %d next", os.Getpid(), chain, os.Getppid())
	}
}

// A request without the run's token, or with another, is refused and
// never reaches the handler; the token itself never reaches it either.
func TestTokenRequired(t *testing.T) {
	t.Parallel()
	var asked []Request
	s := startServer(t, func(_ context.Context, _ int, req Request) Response {
		asked = append(asked, req)
		return Response{Text: "answered"}
	})
	if len(s.Token()) < 20 {
		t.Fatalf("token %q: too short to guess at", s.Token())
	}
	for _, token := range []string{"", "not-the-token", s.Token() + "x"} {
		cl, err := Dial(context.Background(), s.Path(), token)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := cl.Ask(context.Background(), Request{Prompt: "q"})
		cl.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.Error == nil || resp.Error.Code != CodeRefused || !strings.Contains(resp.Error.Message, TokenEnv) {
			t.Fatalf("token %q: %+v, want refused naming %s", token, resp, TokenEnv)
		}
	}
	cl, err := Dial(context.Background(), s.Path(), s.Token())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if resp, err := cl.Ask(context.Background(), Request{Prompt: "q"}); err != nil || resp.Text != "answered" {
		t.Fatalf("with the token: %+v, %v", resp, err)
	}
	if len(asked) != 1 || asked[0].Token != "" {
		t.Fatalf("the handler got %+v, want one request without its token", asked)
	}
}

// The depth check is made at each request, not only when the client
// connects: a child whose parent starts a sub-query after the child's
// first request is refused on its next one.
func TestNestedRefusedOnALaterRequest(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peer credentials are checked on Linux")
	}
	s, release := startHoldingServer(t)
	defer close(release)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+s.Path(), TokenEnv+"="+s.Token(), helperTwiceEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	out := json.NewDecoder(stdout)
	var first Response
	if err := out.Decode(&first); err != nil || first.Text != "ok first" {
		t.Fatalf("first request, nothing in flight: %+v, %v", first, err)
	}
	cl, err := Dial(context.Background(), s.Path(), s.Token())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	go cl.Ask(context.Background(), Request{Prompt: "hold"})
	awaitInFlight(t, s)
	fmt.Fprintln(stdin, "go")
	var second Response
	if err := out.Decode(&second); err != nil {
		t.Fatal(err)
	}
	if second.Error == nil || second.Error.Code != CodeRefused || !strings.Contains(second.Error.Message, "depth 1") {
		t.Fatalf("a request under a sub-query in flight got %+v, want refused (depth 1)", second)
	}
}

// Close waits, in every caller, until the handlers have returned.
func TestCloseWaitsInEveryCaller(t *testing.T) {
	t.Parallel()
	release, started := make(chan struct{}), make(chan struct{})
	s, err := Listen(t.TempDir(), func(context.Context, int, Request) Response {
		close(started)
		<-release
		return Response{Text: "late"}
	})
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(context.Background())
	cl, err := Dial(context.Background(), s.Path(), s.Token())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	go cl.Ask(context.Background(), Request{Prompt: "q"})
	<-started
	first, second := make(chan struct{}), make(chan struct{})
	go func() { s.Close(); close(first) }()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		s.mu.Lock()
		closed := s.closed
		s.mu.Unlock()
		if closed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first Close never began")
		}
	}
	go func() { s.Close(); close(second) }()
	select {
	case <-second:
		t.Fatal("a second Close returned while a handler was still running")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	for _, ch := range []chan struct{}{first, second} {
		select {
		case <-ch:
		case <-time.After(5 * time.Second):
			t.Fatal("Close did not return after the handler did")
		}
	}
}

// awaitInFlight waits (at most 5 s) until this process has a request in
// flight at s.
func awaitInFlight(t *testing.T, s *Server) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; {
		s.mu.Lock()
		n := s.inflight[os.Getpid()]
		s.mu.Unlock()
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the held request never arrived")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// startHoldingServer starts a server that answers "ok PROMPT", holding a
// request whose prompt is "hold" until release is closed.
func startHoldingServer(t *testing.T) (s *Server, release chan struct{}) {
	t.Helper()
	release = make(chan struct{})
	s = startServer(t, func(ctx context.Context, peer int, req Request) Response {
		if req.Prompt == "hold" {
			<-release
		}
		return Response{Text: "ok " + req.Prompt}
	})
	return s, release
}
