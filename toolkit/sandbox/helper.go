package sandbox

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"syscall"
)

// HelperCommand is the hidden first argument that makes rubichan the
// sandbox helper: `rubichan __sandbox [--write DIR]... [--network] --
// PROGRAM ARG...`. main hands such a command line to [Helper] before
// anything else.
const HelperCommand = "__sandbox"

// ProbeCommand is the hidden first argument of the self-test's probe:
// `rubichan __sandbox-probe write FILE`, `... chmod FILE` (to setuid
// 04700), `... connect HOST:PORT` (TCP) or `... udp HOST:PORT` (one
// datagram). It exits 0 when the effect succeeded, [ProbeDenied] when it
// was refused (EACCES, EPERM, EROFS, ENETUNREACH), 1 otherwise.
const ProbeCommand = "__sandbox-probe"

// ProbeDenied is the probe's exit code for a refused effect.
const ProbeDenied = 13

// Rules are what the helper enforces for one command.
type Rules struct {
	// Writable are the directories commands may write in: the workspace,
	// the run's temporary directory, configured extra roots. A missing
	// one is skipped.
	Writable []string
	// Network allows TCP (and UDP where Landlock restricts it).
	Network bool
	// Isolate says that the helper or spawner is started in namespaces
	// of its own (see [Rules.Namespaces], which the caller applies), in
	// which it makes every mount but the writable roots read-only.
	Isolate bool
	// userNS is the uid and gid an isolating helper maps in the new user
	// namespace it starts in (see userNSFlag); nil without one.
	userNS *[2]int
	// ABI is the highest Landlock ABI whose rules are applied, the one
	// the run reported (see [State]), so that what is enforced is what
	// was said; 0 applies no Landlock rules (capabilities are still
	// dropped).
	ABI int
}

// Argv returns the helper's argument list (without the program name)
// that runs prog with argv (argv[0] included) under r.
func (r Rules) Argv(prog string, argv []string) []string {
	out := append([]string{HelperCommand}, r.flags()...)
	out = append(out, "--", prog)
	return append(out, argv...)
}

// parseHelper reads the arguments after [HelperCommand].
func parseHelper(args []string) (r Rules, prog string, argv []string, err error) {
	r, rest, err := parseRules(args)
	switch {
	case err != nil:
		return r, "", nil, err
	case rest == nil:
		return r, "", nil, errors.New("missing -- PROGRAM")
	case len(rest) < 2:
		return r, "", nil, errors.New("missing program after --")
	}
	return r, rest[0], rest[1:], nil
}

// parseRules reads the rule flags of the helper and the spawner up to
// "--"; rest is what follows it, nil without one.
func parseRules(args []string) (r Rules, rest []string, err error) {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "--write":
			if i+1 >= len(args) {
				return r, nil, errors.New("--write needs a directory")
			}
			i++
			r.Writable = append(r.Writable, args[i])
		case "--network":
			r.Network = true
		case "--isolate":
			r.Isolate = true
		case "--userns":
			if i+1 >= len(args) {
				return r, nil, errors.New("--userns needs UID:GID")
			}
			i++
			var ids [2]int
			if n, err := fmt.Sscanf(args[i], "%d:%d", &ids[0], &ids[1]); err != nil || n != 2 {
				return r, nil, fmt.Errorf("--userns: bad ids %q", args[i])
			}
			r.userNS = &ids
		case "--abi":
			if i+1 >= len(args) {
				return r, nil, errors.New("--abi needs a number")
			}
			i++
			if r.ABI, err = strconv.Atoi(args[i]); err != nil || r.ABI < 0 {
				return r, nil, fmt.Errorf("--abi: bad version %q", args[i])
			}
		case "--":
			return r, append([]string{}, args[i+1:]...), nil
		default:
			return r, nil, fmt.Errorf("unknown argument %q", a)
		}
	}
	return r, nil, nil
}

// flags returns r as the flags parseRules reads.
func (r Rules) flags() []string {
	out := make([]string, 0, 2+2*len(r.Writable)+4)
	out = append(out, "--abi", strconv.Itoa(r.ABI))
	for _, d := range r.Writable {
		out = append(out, "--write", d)
	}
	if r.Network {
		out = append(out, "--network")
	}
	if r.Isolate {
		out = append(out, "--isolate")
		out = append(out, userNSFlag()...)
	}
	return out
}

// Helper is the helper mode: args are the arguments after
// [HelperCommand]. It confines the process (see [Confine]) and replaces
// it with the program; it returns only on failure, with exit code 126
// (a shell's "cannot execute") after a line on stderr. The command never
// runs unconfined.
func Helper(args []string, environ []string, stderr io.Writer) int {
	r, prog, argv, err := parseHelper(args)
	if err == nil {
		err = confineAndExec(r, prog, argv, environ)
	}
	fmt.Fprintf(stderr, "rubichan sandbox: %v\n", err)
	return 126
}

// Probe is the self-test's probe mode: args are the arguments after
// [ProbeCommand]. See ProbeCommand for the exit codes.
func Probe(args []string, stderr io.Writer) int {
	if len(args) != 2 {
		fmt.Fprintln(stderr, "usage: "+ProbeCommand+" write FILE | chmod FILE | connect HOST:PORT | udp HOST:PORT")
		return 1
	}
	var err error
	switch args[0] {
	case "write":
		err = os.WriteFile(args[1], []byte("sandbox probe\n"), 0o600)
	case "chmod":
		err = os.Chmod(args[1], 0o700|os.ModeSetuid)
	case "connect", "udp":
		network := map[string]string{"connect": "tcp", "udp": "udp"}[args[0]]
		var c net.Conn
		if c, err = net.Dial(network, args[1]); err == nil {
			_, err = c.Write([]byte("sandbox probe\n"))
			c.Close()
		}
	default:
		err = fmt.Errorf("unknown probe %q", args[0])
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.ENETUNREACH):
		fmt.Fprintln(stderr, err)
		return ProbeDenied
	}
	fmt.Fprintln(stderr, err)
	return 1
}

// IsHelper reports whether args (args[0] the program) start the helper,
// the spawner or the probe.
func IsHelper(args []string) bool {
	return len(args) > 1 && (args[1] == HelperCommand || args[1] == ServeCommand || args[1] == ProbeCommand)
}

// Dispatch runs the helper, the spawner or the probe named by args[1]
// and returns the exit code (the helper returns only on failure).
func Dispatch(args, environ []string, stderr io.Writer) int {
	switch args[1] {
	case ProbeCommand:
		return Probe(args[2:], stderr)
	case ServeCommand:
		return Serve(args[2:], stderr)
	}
	return Helper(args[2:], environ, stderr)
}
