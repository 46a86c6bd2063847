package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// mappingRss is the resident size in kB of the mapping that starts at
// addr, from /proc/self/smaps.
func mappingRss(t *testing.T, addr uintptr) int {
	t.Helper()
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps")
	}
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		if s, _, header, _ := mapping([]byte(line)); header {
			in = s == addr
			continue
		}
		if v, ok := strings.CutPrefix(line, "Rss:"); ok && in {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	t.Fatalf("no mapping at %x", addr)
	return 0
}

// TestTrimResident: a read-only private file mapping leaves the resident
// set and reads the same after; one the process wrote to (as a dynamic
// linker's RELRO, made read-only after its relocations) keeps its pages.
func TestTrimResident(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pages")
	want := bytes.Repeat([]byte("rubichan"), 32<<10) // 256 kB
	if err := os.WriteFile(file, want, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ro, err := syscall.Mmap(int(f.Fd()), 0, len(want), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(ro)
	written, err := syscall.Mmap(int(f.Fd()), 0, len(want), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(written)
	copy(written, bytes.Repeat([]byte("RELOCATE"), 32<<10))
	if err := syscall.Mprotect(written, syscall.PROT_READ); err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, b := range ro {
		sum += int(b)
	}
	roAt, wAt := uintptr(unsafe.Pointer(&ro[0])), uintptr(unsafe.Pointer(&written[0]))
	if n := mappingRss(t, roAt); n == 0 {
		t.Fatalf("the read-only mapping at %x is not resident after reading it (sum %d)", roAt, sum)
	}
	TrimResident()
	if n := mappingRss(t, roAt); n != 0 {
		t.Errorf("read-only mapping: %d kB resident after the trim, want 0", n)
	}
	if n := mappingRss(t, wAt); n < len(want)>>10 {
		t.Errorf("written mapping: %d kB resident after the trim, want all %d kB", n, len(want)>>10)
	}
	if !bytes.Equal(ro, want) || !bytes.Equal(written, bytes.Repeat([]byte("RELOCATE"), 32<<10)) {
		t.Error("a mapping's contents changed")
	}
}

func TestTrimMapping(t *testing.T) {
	tests := []struct {
		line         string
		header, drop bool
	}{
		{"00400000-00aff000 r-xp 00000000 fe:00 10282278    /usr/bin/rubichan", true, true},
		{"00aff000-0122b000 r--p 006ff000 fe:00 10282278    /usr/bin/rubichan", true, true},
		{"0122b000-01297000 rw-p 00e2b000 fe:00 10282278    /usr/bin/rubichan", true, false},
		{"7f00-7f10 r--s 00000000 fe:00 1    /dev/shm/x", true, false},
		{"12c05c00000-12c06000000 rw-p 00000000 00:00 0", true, false},
		{"7ffd-7ffe r-xp 00000000 00:00 0    [vdso]", true, false},
		{"7f00-7f10 r--p 00000000 fe:00 1    /tmp/a b (deleted)", true, true},
		{"7F00-7F10 r-xp 00000000 fe:00 1\t/usr/lib/x", true, true},
		{"7f10-7f00 r--p 00000000 fe:00 1    /usr/lib/x", false, false},
		{"7f00-7g10 r--p 00000000 fe:00 1    /usr/lib/x", false, false},
		{"Anonymous:             0 kB", false, false},
		{"VmFlags: rd ex mr mw me sd", false, false},
	}
	for _, tc := range tests {
		if _, _, header, drop := mapping([]byte(tc.line)); header != tc.header || drop != tc.drop {
			t.Errorf("%q: header %v drop %v, want %v %v", tc.line, header, drop, tc.header, tc.drop)
		}
	}
	line := []byte(tests[0].line)
	if s, e, _, _ := mapping(line); s != 0x400000 || e != 0xaff000 {
		t.Errorf("range %x-%x, want 400000-aff000", s, e)
	}
	// The spawner trims while it serves: parsing allocates nothing.
	if n := testing.AllocsPerRun(100, func() { mapping(line) }); n != 0 {
		t.Errorf("mapping allocates %v times a line", n)
	}
}
