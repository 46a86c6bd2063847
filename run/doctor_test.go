package run

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/run/doctor"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// doctorSetup is a workspace, a state directory and a model server on
// 127.0.0.1 that answers the list of models as status, and the
// environment of a run against it.
type doctorSetup struct {
	dir  string
	vars map[string]string
	srv  *httptest.Server
	keys chan string // the x-api-key of each request
}

func newDoctorSetup(t *testing.T, status int) *doctorSetup {
	t.Helper()
	d := &doctorSetup{dir: t.TempDir(), keys: make(chan string, 4)}
	d.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" || r.Header.Get("anthropic-version") == "" {
			http.NotFound(w, r)
			return
		}
		select {
		case d.keys <- r.Header.Get("x-api-key"):
		default:
		}
		w.WriteHeader(status)
		w.Write([]byte(`{"data":[]}`))
	}))
	t.Cleanup(d.srv.Close)
	d.vars = map[string]string{
		"HOME":               d.dir,
		"XDG_STATE_HOME":     filepath.Join(d.dir, "state"),
		"ANTHROPIC_API_KEY":  testAPIKey,
		"ANTHROPIC_BASE_URL": d.srv.URL,
	}
	return d
}

func (d *doctorSetup) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runCLI(t, fakeEnv(d.vars), "", append([]string{"doctor", "-C", d.dir}, args...)...)
}

// doctorChecks decodes `doctor --json` after validating it against
// testdata/doctor/doctor.schema.json, and returns the checks by name.
func doctorChecks(t *testing.T, out string) (doctor.Report, map[string]doctor.Check) {
	t.Helper()
	c := jsonschema.NewCompiler()
	sch, err := c.Compile(filepath.Join("testdata", "doctor", "doctor.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("doctor --json does not match its schema: %v\n%s", err, out)
	}
	var rep doctor.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	byName := map[string]doctor.Check{}
	for _, ch := range rep.Checks {
		if _, dup := byName[ch.Name]; !dup {
			byName[ch.Name] = ch
		}
	}
	return rep, byName
}

func TestDoctorGoodSetup(t *testing.T) {
	d := newDoctorSetup(t, http.StatusOK)
	code, out, errOut := d.run(t)
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s%s", code, out, errOut)
	}
	if got := <-d.keys; got != testAPIKey {
		t.Errorf("the probe sent the key %q", got)
	}
	for _, want := range []string{"✓ provider   anthropic", "✓ api key    present in ANTHROPIC_API_KEY (not shown)", "✓ reachable  GET " + d.srv.URL + "/v1/models: HTTP 200", "✓ policy     built-in default policy: valid", "no problems found\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out+errOut, testAPIKey) {
		t.Error("the key is printed")
	}
	code, out, _ = d.run(t, "--json", "--max-cost", "2")
	rep, checks := doctorChecks(t, out)
	if code != 0 || !rep.OK || rep.Problems != 0 {
		t.Errorf("--json: exit %d, ok %v, %d problems", code, rep.OK, rep.Problems)
	}
	if len(rep.Config.Set) != 1 || rep.Config.Set[0].Key != "limits.max_cost" || rep.Config.Set[0].Origin != "flag --max-cost" {
		t.Errorf("config set: %+v", rep.Config.Set)
	}
	if checks["reachable"].Status != doctor.StatusOK || checks["sessions"].Status != doctor.StatusOK {
		t.Errorf("checks: %+v", rep.Checks)
	}
	if strings.Contains(out, testAPIKey) {
		t.Error("the key is in the JSON")
	}
}

// TestDoctorProblems: each broken setup is exit 1 with the problem and
// its fix, and the other checks still run.
func TestDoctorProblems(t *testing.T) {
	closed := closedPort(t)
	tests := map[string]struct {
		status int
		setup  func(d *doctorSetup) []string
		check  string
		detail string
		fix    string
	}{
		"missing key": {http.StatusOK, func(d *doctorSetup) []string {
			delete(d.vars, "ANTHROPIC_API_KEY")
			return []string{"--provider", "anthropic"}
		}, "api key", "ANTHROPIC_API_KEY is not set", "export ANTHROPIC_API_KEY"},
		"no provider": {http.StatusOK, func(d *doctorSetup) []string {
			delete(d.vars, "ANTHROPIC_API_KEY")
			return nil
		}, "provider", "no model provider", "export the API key"},
		"unreachable": {http.StatusOK, func(d *doctorSetup) []string {
			d.vars["ANTHROPIC_BASE_URL"] = "http://" + closed
			return nil
		}, "reachable", "connection refused", "check base_url (env ANTHROPIC_BASE_URL)"},
		"key rejected": {http.StatusUnauthorized, func(*doctorSetup) []string { return nil },
			"reachable", "HTTP 401", "check the key in ANTHROPIC_API_KEY"},
		"invalid policy": {http.StatusOK, func(d *doctorSetup) []string {
			p := filepath.Join(d.dir, "bad.toml")
			os.WriteFile(p, []byte("version = 1\n[[rule]]\nid = \"x\"\ntool = \"shell\"\ndecision = \"allow\"\ncommands = [\"ls\"]\n[[test]]\ntool = \"shell\"\ncommand = \"ls\"\nexpect = \"deny\"\n"), 0o644)
			return []string{"--policy", p}
		}, "policy", "self-test failed", "[[test]]"},
		"job summary unwritable": {http.StatusOK, func(d *doctorSetup) []string {
			d.vars["GITHUB_ACTIONS"] = "true"
			d.vars["GITHUB_STEP_SUMMARY"] = filepath.Join(d.dir, "missing", "summary.md")
			return nil
		}, "github", "the job summary file cannot be written", "--github=false"},
		"required MCP server": {http.StatusOK, func(d *doctorSetup) []string {
			p := filepath.Join(d.dir, "mcp.toml")
			os.WriteFile(p, []byte("[mcp.servers.gone]\ncommand = \"rubichan-no-such-mcp-server\"\nrequired = true\n"), 0o644)
			return []string{"--config", p}
		}, "mcp", "gone (required): failed: exec:", "[mcp.servers.gone]"},
		"unwritable session dir": {http.StatusOK, func(d *doctorSetup) []string {
			f := filepath.Join(d.dir, "file")
			os.WriteFile(f, nil, 0o644)
			return []string{"--session-dir", filepath.Join(f, "sessions")}
		}, "sessions", "not a directory", "--no-session"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			d := newDoctorSetup(t, tc.status)
			args := tc.setup(d)
			code, out, errOut := d.run(t, args...)
			if code != 1 {
				t.Fatalf("exit %d, want 1:\n%s%s", code, out, errOut)
			}
			if !regexp.MustCompile(`(?m)^✗ ` + regexp.QuoteMeta(tc.check) + ` .*` + regexp.QuoteMeta(tc.detail) + `.*\n +fix: .*` + regexp.QuoteMeta(tc.fix)).MatchString(out) {
				t.Errorf("want ✗ %s with %q and fix %q:\n%s", tc.check, tc.detail, tc.fix, out)
			}
			code, out, _ = d.run(t, append(args, "--json")...)
			rep, checks := doctorChecks(t, out)
			if code != 1 || rep.OK || rep.Problems != 1 {
				t.Errorf("--json: exit %d, ok %v, problems %d:\n%s", code, rep.OK, rep.Problems, out)
			}
			if ch := checks[tc.check]; ch.Status != doctor.StatusProblem || !strings.Contains(ch.Fix, tc.fix) {
				t.Errorf("check %s: %+v", tc.check, ch)
			}
			if checks["git"].Status == "" || checks["terminal"].Status != doctor.StatusInfo {
				t.Errorf("the other checks did not run: %+v", rep.Checks)
			}
			if strings.Contains(out, testAPIKey) {
				t.Error("the key is printed")
			}
		})
	}
}

// closedPort is a loopback address nothing listens on: connecting to it
// is refused at once.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestDoctorOffline(t *testing.T) {
	d := newDoctorSetup(t, http.StatusOK)
	code, out, _ := d.run(t, "--offline")
	if code != 0 || !strings.Contains(out, "- reachable  --offline") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	select {
	case <-d.keys:
		t.Error("--offline sent a request")
	default:
	}
	var b bytes.Buffer
	doctor.Report{Problems: 2}.WriteText(&b)
	if b.String() != "2 problems found\n" {
		t.Errorf("verdict %q", b.String())
	}
}
