package sandbox

import (
	"errors"
	"fmt"
	"strconv"
)

// Mode is the [shell] sandbox setting.
type Mode string

// The sandbox modes.
const (
	// ModeAuto enforces what the kernel supports and reports it.
	ModeAuto Mode = "auto"
	// ModeRequired fails closed: a run whose sandbox cannot be had
	// (no Landlock, no network rules while the network is off, or no
	// namespaces for the commands) does not start.
	ModeRequired Mode = "required"
	// ModeOff runs commands unconfined.
	ModeOff Mode = "off"
)

// ParseMode checks a mode's name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeAuto, ModeRequired, ModeOff:
		return m, nil
	}
	return "", fmt.Errorf("want auto, required or off, got %q", s)
}

// Network states of a [State].
const (
	NetBlocked     = "blocked"     // TCP connect and bind are denied (and every packet, with namespaces)
	NetAllowed     = "allowed"     // the network is allowed (network = true, or the sandbox is off)
	NetUnblockable = "unblockable" // the network is off, but the kernel cannot block it (Landlock ABI < 4, no namespaces)
)

// minNetABI is the first Landlock ABI with network rules (TCP).
const minNetABI = 4

// minUDPABI is the first Landlock ABI that also restricts UDP.
const minUDPABI = 10

// MinScopeABI is the first Landlock ABI that scopes abstract Unix sockets
// and signals to the sandbox's own processes.
const MinScopeABI = 6

// MinUnixPathABI is the first Landlock ABI that restricts connections to
// Unix sockets with a path (outside the writable roots).
const MinUnixPathABI = 9

// State is what the sandbox achieves for a mode on this kernel. It is
// reported on stderr, in the init event and by `rubichan sandbox check`.
type State struct {
	Mode Mode `json:"mode"`
	// Available is false where Landlock cannot exist (not Linux) or the
	// kernel lacks it (ABI 0).
	Available bool `json:"available"`
	// ABI is the kernel's Landlock ABI version; 0 without Landlock.
	ABI int `json:"abi"`
	// Filesystem says whether writes are confined to the writable roots.
	Filesystem bool `json:"filesystem"`
	// Network is [NetBlocked], [NetAllowed] or [NetUnblockable].
	Network string `json:"network"`
	// UDP says whether UDP is blocked with TCP: by the network namespace
	// (see Isolated), or Landlock ABI >= 10.
	UDP bool `json:"udp"`
	// Isolated says whether commands run in namespaces of their own (see
	// [Rules.Namespaces]): every mount but the writable roots read-only,
	// which refuses chmod, chown, utime and setxattr outside them, and,
	// with the network off, no network at all.
	Isolated bool `json:"isolated"`
	// NoIsolation says why commands cannot be isolated ("" when they
	// are, or the sandbox is off or unavailable).
	NoIsolation string `json:"no_isolation,omitempty"`
	// Seccomp says that Landlock is unavailable to a process under a
	// seccomp filter (see [State.UnderSeccomp]), as in a container whose
	// runtime's profile may refuse the landlock calls.
	Seccomp bool `json:"seccomp,omitempty"`
	// Helper says whether commands go through the helper, which also
	// drops every capability and sets no_new_privs: on Linux unless the
	// mode is off.
	Helper bool `json:"helper"`
}

// Achieve returns the state mode gives with network allowed or not, on
// a kernel with Landlock ABI abi where namespaces can be had when ns is
// nil (see [ProbeNamespaces]); linux says whether the platform is Linux
// (the only one with a helper). Commands are isolated only along with
// Landlock (whose kernels all have the mount calls isolation needs).
func Achieve(mode Mode, network bool, abi int, linux bool, ns error) State {
	if !linux {
		abi = 0
	}
	s := State{Mode: mode, Available: linux && abi > 0, ABI: abi, Network: NetAllowed}
	if mode == ModeOff {
		return s
	}
	s.Helper = linux
	s.Filesystem = s.Available
	if s.Available {
		s.Isolated = ns == nil
		if ns != nil {
			s.NoIsolation = ns.Error()
		}
	}
	if !network {
		s.Network = NetUnblockable
		if abi >= minNetABI || s.Isolated {
			s.Network = NetBlocked
			s.UDP = abi >= minUDPABI || s.Isolated
		}
	}
	return s
}

// Short reports whether the sandbox falls short of what it was asked for:
// writes, the network, metadata outside the writable roots, UDP.
func (s State) Short() bool {
	return s.Mode != ModeOff && (!s.Filesystem || s.Network == NetUnblockable || !s.Isolated)
}

// ErrUnmet is the cause of [State.Unmet]'s error.
var ErrUnmet = errors.New("the sandbox cannot be enforced")

// Unmet returns an error wrapping [ErrUnmet] when the mode is required
// and the state falls short: no Landlock, a network that should be off
// but cannot be blocked, or no namespaces for the commands. It returns
// nil otherwise.
func (s State) Unmet() error {
	if s.Mode != ModeRequired {
		return nil
	}
	switch {
	case !s.Available && !s.Helper:
		return fmt.Errorf("%w: sandbox = \"required\", and Landlock is unavailable on this platform", ErrUnmet)
	case !s.Available && s.Seccomp:
		return fmt.Errorf("%w: sandbox = \"required\", and Landlock is unavailable under this process's seccomp filter: a container runtime's profile may refuse landlock_create_ruleset, landlock_add_rule and landlock_restrict_self (allow them, docs/scale-out.md), or the kernel lacks Landlock (lsm=landlock at boot, Linux >= 5.13)", ErrUnmet)
	case !s.Available:
		return fmt.Errorf("%w: sandbox = \"required\", and this kernel has no Landlock (enable it with lsm=landlock at boot, Linux >= 5.13)", ErrUnmet)
	case s.Network == NetUnblockable:
		return fmt.Errorf("%w: sandbox = \"required\" with network = false, and this kernel's Landlock ABI %d has no network rules (ABI >= %d, Linux >= 6.7); set network = true or use a newer kernel", ErrUnmet, s.ABI, minNetABI)
	case !s.Isolated:
		return fmt.Errorf("%w: sandbox = \"required\", and commands cannot get namespaces of their own (%s), without which chmod, chown, utime and setxattr outside the writable roots, and UDP while the network is off, are not refused", ErrUnmet, s.NoIsolation)
	}
	return nil
}

// String is the one-line summary: "sandbox auto: landlock ABI 7,
// filesystem yes, network blocked", followed by what is not refused
// without namespaces when they cannot be had.
func (s State) String() string {
	if s.Mode == ModeOff {
		return "sandbox off: commands run unconfined"
	}
	ll := "landlock unavailable"
	if s.Seccomp {
		ll += " (under a seccomp filter: the container runtime's profile may refuse it)"
	}
	if s.Available {
		ll = "landlock ABI " + strconv.Itoa(s.ABI)
	}
	fs := "no"
	if s.Filesystem {
		fs = "yes"
	}
	out := fmt.Sprintf("sandbox %s: %s, filesystem %s, network %s", s.Mode, ll, fs, s.Network)
	if s.Available && !s.Isolated {
		out += "; no namespaces (" + s.NoIsolation + "): chmod, chown, utime and setxattr outside the writable roots"
		if s.Network == NetBlocked && !s.UDP {
			out += " and UDP"
		}
		out += " not refused"
	}
	return out
}
