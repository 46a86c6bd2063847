package sandbox

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
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
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return
	}
	defer f.Close()
	// Line by line through one small buffer: the spawner trims again
	// once it serves, and reading the whole file (a hundred kilobytes and
	// a string a line) would leave that much garbage on its small heap.
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4<<10), 64<<10)
	var start, end uintptr
	ok := false
	for sc.Scan() {
		line := sc.Bytes()
		if s, e, isHeader, drop := mapping(line); isHeader {
			start, end, ok = s, e, drop
			continue
		}
		if v, found := bytes.CutPrefix(line, []byte("Anonymous:")); found && ok {
			if string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(v), []byte("kB")))) == "0" {
				_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, start, end-start, syscall.MADV_DONTNEED)
			}
			ok = false
		}
	}
}

// mapping parses a line of /proc/PID/smaps: whether it is a mapping's
// header, its range, and whether the mapping may be dropped (private,
// not writable, of a file). It allocates nothing.
func mapping(line []byte) (start, end uintptr, header, drop bool) {
	var f [6][]byte // range, perms, offset, device, inode, path
	n := 0
	for rest := line; n < len(f); n++ {
		rest = bytes.TrimLeft(rest, " \t")
		if len(rest) == 0 {
			break
		}
		i := bytes.IndexAny(rest, " \t")
		if i < 0 || n == len(f)-1 {
			i = len(rest)
		}
		f[n], rest = rest[:i], rest[i:]
	}
	if n < 5 || len(f[1]) != 4 || bytes.HasSuffix(f[0], []byte(":")) {
		return 0, 0, false, false
	}
	lo, hi, found := bytes.Cut(f[0], []byte("-"))
	if !found {
		return 0, 0, false, false
	}
	// The conversions do not escape: ParseUint copies what its error keeps.
	s, err1 := strconv.ParseUint(string(lo), 16, 64)
	e, err2 := strconv.ParseUint(string(hi), 16, 64)
	if err1 != nil || err2 != nil || e <= s {
		return 0, 0, false, false
	}
	drop = n >= 6 && bytes.HasPrefix(f[5], []byte("/")) && f[1][1] != 'w' && f[1][3] == 'p'
	return uintptr(s), uintptr(e), true, drop
}
