package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Linux reports whether this platform has the helper.
const Linux = true

// Probe returns the kernel's Landlock ABI version, 0 without Landlock.
func ProbeABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v < 0 {
		return 0
	}
	return v
}

// confineAndExec drops capabilities, sets no_new_privs, applies the
// Landlock rules (what the kernel supports of them) and execs prog. It
// returns only on failure.
func confineAndExec(r Rules, prog string, argv, environ []string) error {
	// Credentials (capabilities, no_new_privs, the Landlock domain) are
	// per thread, and execve gives the new program those of the thread
	// that calls it, whose siblings it ends. Lock this goroutine to its
	// thread, change that thread's credentials and exec from it: the
	// other threads never run the command. (go-landlock applies its rules
	// to every thread, which is more than needed.)
	runtime.LockOSThread()
	if err := confineThread(r); err != nil {
		return err
	}
	err := syscall.Exec(prog, argv, environ)
	return fmt.Errorf("exec %s: %w", prog, err)
}

// confineThread isolates the process when the rules say so (see
// [Rules.Namespaces]), drops the calling thread's capabilities, sets
// no_new_privs and applies the Landlock rules (what the kernel supports
// of them). The caller has locked its goroutine to the thread, and starts
// commands only from it.
func confineThread(r Rules) error {
	if r.Isolate {
		if err := isolate(r.Writable, r.userNS); err != nil {
			return err
		}
	}
	if err := dropCapabilities(); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if abi := min(r.ABI, ProbeABI()); abi > 0 {
		if err := restrict(r, abi); err != nil {
			return fmt.Errorf("landlock: %w", err)
		}
	}
	return nil
}

// restrict applies r with Landlock ABI abi (or the newest go-landlock
// knows, if abi is newer), best effort: what the kernel supports of it.
func restrict(r Rules, abi int) error {
	configs := [...]landlock.Config{landlock.V1, landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5,
		landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}
	cfg := configs[min(abi, len(configs)-1)].BestEffort()
	if r.Network {
		cfg.HandledAccessNet = 0
	}
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		// /dev/null is where shells and programs throw output away.
		landlock.RWFiles("/dev/null"),
	}
	for _, d := range r.Writable {
		// Refer lets mv and rename work between writable directories.
		// ResolveUnix (ABI >= 9) lets commands connect to Unix sockets
		// there — the run's sub-query socket in $TMPDIR — and only there.
		rules = append(rules, landlock.RWDirs(d).WithRefer().WithResolveUnix().IgnoreIfMissing())
	}
	return cfg.Restrict(rules...)
}

// dropCapabilities empties the bounding set, the ambient set and the
// effective, permitted and inheritable sets of the calling thread, so that a
// command run as root cannot use CAP_SYS_PTRACE, CAP_DAC_OVERRIDE and
// the like, for instance to read rubichan's /proc/PID/environ.
func dropCapabilities() error {
	last := lastCap()
	for c := 0; c <= last; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		switch {
		case err == nil, errors.Is(err, syscall.EINVAL):
		case errors.Is(err, syscall.EPERM):
			// Without CAP_SETPCAP the bounding set cannot shrink, and
			// there is no capability to keep either: no_new_privs stops
			// exec from gaining one.
		default:
			return fmt.Errorf("prctl(PR_CAPBSET_DROP, %d): %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("prctl(PR_CAP_AMBIENT_CLEAR_ALL): %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}

// lastCap is the highest capability number this kernel knows.
func lastCap() int {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			return n
		}
	}
	return 63
}
