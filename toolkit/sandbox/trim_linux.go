package sandbox

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// TrimResident drops the read-only file pages of the process (its
// program's code and read-only data) from its resident set; best effort.
//
// rubichan's start-up (the runtime, every package's initialisation, and
// the kernel mapping whole folios of the executable around each fault)
// leaves about 9 MB of the executable resident, much of which what comes
// after never touches again: the spawner's loop, or a run's turn loop.
// The pages stay in the page cache, shared; the process faults back in
// what it touches again. Only mappings that hold nothing of the process's
// own are dropped: private, not writable, of a file, and without
// anonymous pages (a dynamic linker's relocated RELRO has some), so
// nothing is lost.
func TrimResident() {
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return
	}
	var start, end uintptr
	ok := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if s, e, isHeader, drop := mapping(line); isHeader {
			start, end, ok = s, e, drop
			continue
		}
		if v, found := strings.CutPrefix(line, "Anonymous:"); found && ok {
			if strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")) == "0" {
				_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, start, end-start, syscall.MADV_DONTNEED)
			}
			ok = false
		}
	}
}

// mapping parses a line of /proc/PID/smaps: whether it is a mapping's
// header, its range, and whether the mapping may be dropped (private,
// not writable, of a file).
func mapping(line string) (start, end uintptr, header, drop bool) {
	f := strings.Fields(line)
	if len(f) < 5 || len(f[1]) != 4 || strings.HasSuffix(f[0], ":") {
		return 0, 0, false, false
	}
	lo, hi, found := strings.Cut(f[0], "-")
	if !found {
		return 0, 0, false, false
	}
	s, err1 := strconv.ParseUint(lo, 16, 64)
	e, err2 := strconv.ParseUint(hi, 16, 64)
	if err1 != nil || err2 != nil || e <= s {
		return 0, 0, false, false
	}
	drop = len(f) >= 6 && strings.HasPrefix(f[5], "/") && f[1][1] != 'w' && f[1][3] == 'p'
	return uintptr(s), uintptr(e), true, drop
}
