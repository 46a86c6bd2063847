package sandbox

import (
	"bufio"
	"bytes"
	"os"
)

// ProbeSeccomp reports whether this process runs under a seccomp filter
// (/proc/self/status says "Seccomp: 2"), as a container's processes do:
// the runtime's profile may be what refuses the Landlock calls. False
// where there is no such file (not Linux).
func ProbeSeccomp() bool {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false
	}
	return seccompFiltered(data)
}

// seccompFiltered reads the Seccomp line of a /proc/PID/status.
func seccompFiltered(status []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("Seccomp:")); ok {
			return string(bytes.TrimSpace(v)) == "2"
		}
	}
	return false
}

// UnderSeccomp returns s noting that the process runs under a seccomp
// filter (filtered), when it matters: on Linux, with the sandbox on and
// Landlock unavailable, where the filter may be the cause.
func (s State) UnderSeccomp(filtered bool) State {
	s.Seccomp = filtered && s.Helper && !s.Available
	return s
}
