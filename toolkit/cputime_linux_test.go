package toolkit

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// treeCPU is the CPU time (user and system) used so far by this process,
// its reaped children and, for each of pids, that process and its reaped
// children: what one benchmark's commands cost wherever they ran.
func treeCPU(pids ...int) time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	for _, pid := range pids {
		total += procCPU(pid)
	}
	return total
}

// procCPU reads utime, stime, cutime and cstime of pid from
// /proc/PID/stat (in clock ticks of 10 ms).
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	_, rest, _ := strings.Cut(string(b), ") ") // the command name may hold spaces
	f := strings.Fields(rest)
	var ticks int64
	for _, i := range []int{11, 12, 13, 14} { // fields 14–17, counted from 3
		if i < len(f) {
			n, _ := strconv.ParseInt(f[i], 10, 64)
			ticks += n
		}
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

// procStatusMB reads a size field of /proc/PID/status (VmHWM: the peak
// resident set; RssAnon: the resident memory not backed by a file) in MB;
// 0 when it cannot be read.
func procStatusMB(pid int, field string) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return float64(kb) / 1024
		}
	}
	return 0
}
