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
	// (no Landlock, or no network rules while the network is off) does
	// not start.
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
	NetBlocked     = "blocked"     // TCP connect and bind are denied
	NetAllowed     = "allowed"     // the network is allowed (network = true, or the sandbox is off)
	NetUnblockable = "unblockable" // the network is off, but the kernel cannot block it (Landlock ABI < 4)
)

// minNetABI is the first Landlock ABI with network rules (TCP).
const minNetABI = 4

// minUDPABI is the first Landlock ABI that also restricts UDP.
const minUDPABI = 10

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
	// UDP says whether UDP is blocked with TCP (Landlock ABI >= 10).
	UDP bool `json:"udp"`
	// Helper says whether commands go through the helper, which also
	// drops every capability and sets no_new_privs: on Linux unless the
	// mode is off.
	Helper bool `json:"helper"`
}

// Achieve returns the state mode gives with network allowed or not, on
// a kernel with Landlock ABI abi; linux says whether the platform is
// Linux (the only one with a helper).
func Achieve(mode Mode, network bool, abi int, linux bool) State {
	if !linux {
		abi = 0
	}
	s := State{Mode: mode, Available: linux && abi > 0, ABI: abi, Network: NetAllowed}
	if mode == ModeOff {
		return s
	}
	s.Helper = linux
	s.Filesystem = s.Available
	if !network {
		s.Network = NetUnblockable
		if abi >= minNetABI {
			s.Network = NetBlocked
			s.UDP = abi >= minUDPABI
		}
	}
	return s
}

// ErrUnmet is the cause of [State.Unmet]'s error.
var ErrUnmet = errors.New("the sandbox cannot be enforced")

// Unmet returns an error wrapping [ErrUnmet] when the mode is required
// and the state falls short: no Landlock, or a network that should be
// off but cannot be blocked. It returns nil otherwise.
func (s State) Unmet() error {
	if s.Mode != ModeRequired {
		return nil
	}
	switch {
	case !s.Available && !s.Helper:
		return fmt.Errorf("%w: sandbox = \"required\", and Landlock is unavailable on this platform", ErrUnmet)
	case !s.Available:
		return fmt.Errorf("%w: sandbox = \"required\", and this kernel has no Landlock (enable it with lsm=landlock at boot, Linux >= 5.13)", ErrUnmet)
	case s.Network == NetUnblockable:
		return fmt.Errorf("%w: sandbox = \"required\" with network = false, and this kernel's Landlock ABI %d has no network rules (ABI >= %d, Linux >= 6.7); set network = true or use a newer kernel", ErrUnmet, s.ABI, minNetABI)
	}
	return nil
}

// String is the one-line summary: "sandbox auto: landlock ABI 7,
// filesystem yes, network blocked".
func (s State) String() string {
	if s.Mode == ModeOff {
		return "sandbox off: commands run unconfined"
	}
	ll := "landlock unavailable"
	if s.Available {
		ll = "landlock ABI " + strconv.Itoa(s.ABI)
	}
	fs := "no"
	if s.Filesystem {
		fs = "yes"
	}
	return fmt.Sprintf("sandbox %s: %s, filesystem %s, network %s", s.Mode, ll, fs, s.Network)
}
