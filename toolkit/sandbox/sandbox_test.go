package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestMain makes the test binary the helper and the probe when it is
// started as one, the way rubichan's main does.
func TestMain(m *testing.M) {
	if IsHelper(os.Args) {
		os.Exit(Dispatch(os.Args, os.Environ(), os.Stderr))
	}
	os.Exit(m.Run())
}

func TestAchieve(t *testing.T) {
	t.Parallel()
	noNS := errors.New("user namespaces are disabled")
	const short = "; no namespaces (user namespaces are disabled): chmod, chown, utime and setxattr outside the writable roots"
	cases := []struct {
		name    string
		mode    Mode
		network bool
		abi     int
		linux   bool
		ns      error
		want    string
		unmet   bool
	}{
		{"auto abi7", ModeAuto, false, 7, true, nil, "sandbox auto: landlock ABI 7, filesystem yes, network blocked", false},
		{"auto abi7 no namespaces", ModeAuto, false, 7, true, noNS, "sandbox auto: landlock ABI 7, filesystem yes, network blocked" + short + " and UDP not refused", false},
		{"auto abi10 no namespaces", ModeAuto, false, 10, true, noNS, "sandbox auto: landlock ABI 10, filesystem yes, network blocked" + short + " not refused", false},
		{"auto abi3", ModeAuto, false, 3, true, nil, "sandbox auto: landlock ABI 3, filesystem yes, network blocked", false},
		{"auto abi3 no namespaces", ModeAuto, false, 3, true, noNS, "sandbox auto: landlock ABI 3, filesystem yes, network unblockable" + short + " not refused", false},
		{"auto none", ModeAuto, false, 0, true, nil, "sandbox auto: landlock unavailable, filesystem no, network unblockable", false},
		{"auto darwin", ModeAuto, false, 7, false, noNS, "sandbox auto: landlock unavailable, filesystem no, network unblockable", false},
		{"auto network", ModeAuto, true, 7, true, nil, "sandbox auto: landlock ABI 7, filesystem yes, network allowed", false},
		{"auto network no namespaces", ModeAuto, true, 7, true, noNS, "sandbox auto: landlock ABI 7, filesystem yes, network allowed" + short + " not refused", false},
		{"required abi7", ModeRequired, false, 7, true, nil, "sandbox required: landlock ABI 7, filesystem yes, network blocked", false},
		{"required abi7 no namespaces", ModeRequired, false, 7, true, noNS, "sandbox required: landlock ABI 7, filesystem yes, network blocked" + short + " and UDP not refused", true},
		{"required abi3", ModeRequired, false, 3, true, nil, "sandbox required: landlock ABI 3, filesystem yes, network blocked", false},
		{"required abi3 no namespaces", ModeRequired, false, 3, true, noNS, "sandbox required: landlock ABI 3, filesystem yes, network unblockable" + short + " not refused", true},
		{"required abi3 network", ModeRequired, true, 3, true, nil, "sandbox required: landlock ABI 3, filesystem yes, network allowed", false},
		{"required none", ModeRequired, true, 0, true, nil, "sandbox required: landlock unavailable, filesystem no, network allowed", true},
		{"required darwin", ModeRequired, true, 0, false, noNS, "sandbox required: landlock unavailable, filesystem no, network allowed", true},
		{"off", ModeOff, false, 7, true, nil, "sandbox off: commands run unconfined", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := Achieve(tc.mode, tc.network, tc.abi, tc.linux, tc.ns)
			if got := st.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
			if err := st.Unmet(); (err != nil) != tc.unmet {
				t.Errorf("Unmet() = %v, want an error: %v", err, tc.unmet)
			}
			if wantIsolated := tc.ns == nil && st.Available && tc.mode != ModeOff; st.Isolated != wantIsolated {
				t.Errorf("Isolated = %v, want %v", st.Isolated, wantIsolated)
			}
		})
	}
}

func TestHelperArgsRoundTrip(t *testing.T) {
	t.Parallel()
	r := Rules{Writable: []string{"/w", "/t"}, Network: true, ABI: 7, Isolate: true}
	argv := r.Argv("/bin/sh", []string{"sh", "-c", "echo --write"})
	got, prog, args, err := parseHelper(argv[1:])
	if err != nil || prog != "/bin/sh" || len(args) != 3 || args[2] != "echo --write" || !got.Network || got.ABI != 7 || len(got.Writable) != 2 || !got.Isolate {
		t.Fatalf("parseHelper(%q) = %+v %q %q %v", argv, got, prog, args, err)
	}
	if _, _, _, err := parseHelper([]string{"--write"}); err == nil {
		t.Error("parseHelper accepted --write without a directory")
	}
	if got, _, _, err := parseHelper([]string{"--userns", "1000:100", "--", "/bin/sh", "sh"}); err != nil || got.userNS == nil || *got.userNS != [2]int{1000, 100} {
		t.Errorf("parseHelper(--userns 1000:100) = %+v, %v", got, err)
	}
	if _, _, _, err := parseHelper([]string{"--userns", "x"}); err == nil {
		t.Error("parseHelper accepted --userns x")
	}
}

// TestSelfTest proves on this kernel that the helper blocks a write
// outside and a TCP connection, and lets the connection through with the
// network allowed. It needs Landlock ABI >= 4 and fails without it: the
// CI machine must be able to enforce sandbox = "required".
func TestSelfTest(t *testing.T) {
	abi := ProbeABI()
	if !Linux {
		t.Skip("the helper runs on Linux only")
	}
	if abi < minNetABI {
		t.Fatalf("this test needs Landlock ABI >= %d (network rules); the kernel has ABI %d", minNetABI, abi)
	}
	for _, network := range []bool{false, true} {
		st := Achieve(ModeRequired, network, abi, true, ProbeNamespaces())
		res, err := SelfTest(context.Background(), "/proc/self/exe", st)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if !r.OK() {
				t.Errorf("network=%v: %s: blocked=%v, want %v (%s)", network, r.Name, r.Blocked, r.Want, r.Detail)
			}
		}
		if res[1].Blocked == network {
			t.Errorf("network=%v: tcp connect blocked=%v", network, res[1].Blocked)
		}
	}
}

// TestUnderSeccomp: Landlock missing under a seccomp filter (a container)
// says the runtime's profile may be the cause, in the one-line state and
// in required's refusal; with Landlock there, or the sandbox off, or no
// filter, nothing changes.
func TestUnderSeccomp(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name              string
		st                State
		filtered          bool
		want, unmet, flag string
	}{
		{"auto blocked", Achieve(ModeAuto, false, 0, true, nil), true,
			"sandbox auto: landlock unavailable (under a seccomp filter: the container runtime's profile may refuse it), filesystem no, network unblockable", "", "true"},
		{"required blocked", Achieve(ModeRequired, false, 0, true, nil), true,
			"sandbox required: landlock unavailable (under a seccomp filter: the container runtime's profile may refuse it), filesystem no, network unblockable",
			"Landlock is unavailable under this process's seccomp filter: a container runtime's profile may refuse landlock_create_ruleset", "true"},
		{"required no filter", Achieve(ModeRequired, false, 0, true, nil), false,
			"sandbox required: landlock unavailable, filesystem no, network unblockable", "this kernel has no Landlock", "false"},
		{"landlock there", Achieve(ModeAuto, false, 7, true, nil), true, "sandbox auto: landlock ABI 7, filesystem yes, network blocked", "", "false"},
		{"off", Achieve(ModeOff, false, 0, true, nil), true, "sandbox off: commands run unconfined", "", "false"},
		{"not linux", Achieve(ModeAuto, false, 0, false, nil), true, "sandbox auto: landlock unavailable, filesystem no, network unblockable", "", "false"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := tc.st.UnderSeccomp(tc.filtered)
			if got := st.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
			err := st.Unmet()
			if tc.unmet == "" && err != nil || tc.unmet != "" && (err == nil || !strings.Contains(err.Error(), tc.unmet)) {
				t.Errorf("Unmet() = %v, want %q", err, tc.unmet)
			}
			if got := fmt.Sprint(st.Seccomp); got != tc.flag {
				t.Errorf("Seccomp = %s, want %s", got, tc.flag)
			}
		})
	}
}

func TestSeccompFiltered(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		"Name:\tx\nSeccomp:\t2\nSeccomp_filters:\t1\n": true,
		"Name:\tx\nSeccomp:\t0\nSeccomp_filters:\t0\n": false,
		"Seccomp:\t1\n": false,
		"Name:\tx\n":    false,
		"":              false,
	} {
		if got := seccompFiltered([]byte(in)); got != want {
			t.Errorf("seccompFiltered(%q) = %v, want %v", in, got, want)
		}
	}
}
