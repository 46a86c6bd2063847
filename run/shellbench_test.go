package run

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm/llmtest"
	"github.com/rubichan/rubichan/run/agent/agenttest"
	"github.com/rubichan/rubichan/toolkit/sandbox"
)

// benchBinary, when set, is the rubichan the run benchmarks measure
// instead of one built from this tree: a before binary, timed in the same
// sitting as an after one.
var benchBinary = flag.String("bench.binary", "", "the rubichan binary the run benchmarks measure (default: build this tree)")

// Targets of the performance issue (41).
const (
	shellTurns        = 50
	treePeakTarget    = 25 << 20
	mainPeakTarget    = 16 << 20
	helperTarget      = 6 << 20
	shellCallTargetMS = 1.0
)

// Ceilings the benchmark fails past, with room for another machine over
// the figures measured here when the targets above were met (tree
// 23.5–24.9, main 15.0–15.8, helper 4.7–5.1 MB; see README's performance
// table): a figure between its target and its ceiling is reported as a
// missed target, not a failure, and the ceiling keeps what was won from
// slipping back. The tree's ceiling is main's plus the helper's plus 4 MB
// for a shell; the raw sum's (each resident set summed, a CLONE_VM child
// counted beside its parent, see sampleTree) main's plus the helper's
// twice plus 1 MB, as before address spaces were counted once.
const (
	treePeakCeiling = mainPeakCeiling + helperCeiling + 4<<20
	rawPeakCeiling  = mainPeakCeiling + 2*helperCeiling + 1<<20
	mainPeakCeiling = 17 << 20
	helperCeiling   = 6 << 20
)

// benchRubichan is [benchBinary], or the program built from this tree.
func benchRubichan(b *testing.B) string {
	if *benchBinary != "" {
		return *benchBinary
	}
	return buildRubichan(b)
}

// treeMem is what sampling a process tree found: the peak of the sum of
// the resident sets of the process and its descendants, the process's
// own peak, and the sandbox helper's (the spawner, [sandbox.ServeCommand])
// peak and last resident set.
type treeMem struct {
	tree, raw, main, helperPeak, helperRSS int64
	helper                                 bool
	// shared counts the samples that found a process sharing its
	// parent's address space; uncompared, those kcmp would not compare.
	shared, uncompared int
}

// procKB reads the fields of /proc/PID/status named, in kB.
func procKB(pid int, names ...string) []int64 {
	out := make([]int64, len(names))
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(data), "\n") {
		for i, n := range names {
			if v, ok := strings.CutPrefix(line, n+":"); ok {
				fmt.Sscanf(strings.TrimSpace(v), "%d", &out[i])
			}
		}
	}
	return out
}

// children lists the children of every thread of pid.
func children(pid int) []int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var out []int
	for _, t := range tasks {
		data, _ := os.ReadFile(t)
		for _, f := range strings.Fields(string(data)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// sampleTree runs cmd and samples its process tree every 2 ms until it
// exits (the last few milliseconds are not sampled). The tree's figure
// counts each address space once: a child started with CLONE_VM (as Go
// starts every child) shares its parent's memory until it execs, and
// summing its resident set too would count that memory twice; raw is the
// plain sum.
func sampleTree(cmd *exec.Cmd, exe string) (treeMem, error) {
	var m treeMem
	if err := cmd.Start(); err != nil {
		return m, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	helper := 0
	for {
		root := cmd.Process.Pid
		v := procKB(root, "VmRSS", "VmHWM")
		sum, raw := v[0], v[0]
		m.main = max(m.main, v[1]<<10)
		type proc struct{ pid, parent int }
		var queue []proc
		for _, c := range children(root) {
			queue = append(queue, proc{c, root})
		}
		for depth := 0; len(queue) > 0 && depth < 1000; depth++ {
			p := queue[0].pid
			same, ok := sameAddressSpace(p, queue[0].parent)
			queue = queue[1:]
			for _, c := range children(p) {
				queue = append(queue, proc{c, p})
			}
			cv := procKB(p, "VmRSS", "VmHWM")
			raw += cv[0]
			switch {
			case !ok:
				m.uncompared++
				sum += cv[0]
			case same:
				m.shared++
			default:
				sum += cv[0]
			}
			if helper == 0 {
				target, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", p))
				args, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
				if target == exe && strings.Contains(string(args), sandbox.ServeCommand) {
					helper = p
				}
			}
			if p == helper && cv[0] > 0 {
				m.helper = true
				m.helperPeak = max(m.helperPeak, cv[1]<<10)
				m.helperRSS = cv[0] << 10
			}
		}
		m.tree, m.raw = max(m.tree, sum<<10), max(m.raw, raw<<10)
		select {
		case err := <-done:
			return m, err
		case <-tick.C:
		}
	}
}

// BenchmarkShellTurns runs the binary through 50 turns of one `true` bash
// call each, sandbox on (auto), and reports:
//
//   - tree-peak-MB: the peak of the summed resident sets of rubichan and
//     everything it started, each address space once (target 25 MB;
//     tree-raw-peak-MB sums them all, see sampleTree); main-peak-MB:
//     rubichan's own (target 16 MB);
//   - helper-rss-MB: the sandbox helper's resident set while it serves
//     (target 6 MB), and helper-peak-MB its peak, reached at its start;
//   - ms/shell-call: the harness's own time per shell call beyond
//     starting `bash -c true` (target 1 ms): the run's time minus a
//     one-turn run's, minus 50 `bash -c true` timed in the same
//     iteration, per call; it includes the model round trip on the
//     scripted server, which answers without checking the requests
//     ([llmtest.Server.Lean]: on two cores its checks of a growing
//     conversation took a third of a millisecond a turn, its own time,
//     not the harness's). sandbox-ms/call is the same with the sandbox
//     off subtracted: what the sandbox costs per call.
//   - floor-ms/spawn: one `bash -c true`; floor-MB: the peak resident
//     set of an empty Go program idling.
func BenchmarkShellTurns(b *testing.B) {
	bin := benchRubichan(b)
	floorMem := floorRSS(b, buildFloor(b))
	exe, _ := filepath.Abs(bin)
	ws := b.TempDir()
	// run runs the binary through script; sample samples its memory, which
	// costs the benchmark's process (where the scripted server runs too)
	// CPU every 2 ms: the timed runs are not sampled.
	run := func(script llmtest.Script, sandbox string, sample bool) (time.Duration, treeMem) {
		srv := llmtest.NewServer(script)
		defer srv.Close()
		srv.Lean() // its checks of each request are not the harness's time
		cmd := exec.Command(bin, "exec", "-C", ws, "--quiet", "--no-stdin", "--sandbox", sandbox, "--max-turns", fmt.Sprint(shellTurns+1), "go")
		cmd.Env = benchEnv(b, srv.URL())
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		var m treeMem
		start := time.Now()
		var err error
		if sample {
			m, err = sampleTree(cmd, exe)
		} else {
			err = cmd.Run()
		}
		d := time.Since(start)
		if err != nil || out.String() != "done\n" {
			b.Fatalf("run: %v\nstdout: %s\nstderr: %s", err, out.String(), errOut.String())
		}
		return d, m
	}
	spawns := func() time.Duration {
		start := time.Now()
		for range shellTurns {
			if err := exec.Command("bash", "-c", "true").Run(); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(start)
	}
	shell := agenttest.ToolTurns(shellTurns, "bash", `{"command":"true"}`)
	oneTurn := llmtest.Script{Turns: []llmtest.Turn{{Text: []string{"done"}}}}
	run(oneTurn, "auto", false) // the page cache
	var on, off, base, floor time.Duration
	var peak treeMem
	for b.Loop() {
		_, m := run(shell, "auto", true)
		if !m.helper {
			b.Fatal("no sandbox helper ran: is Landlock available?")
		}
		peak.tree, peak.raw, peak.main = max(peak.tree, m.tree), max(peak.raw, m.raw), max(peak.main, m.main)
		peak.shared, peak.uncompared = peak.shared+m.shared, peak.uncompared+m.uncompared
		peak.helperPeak, peak.helperRSS = max(peak.helperPeak, m.helperPeak), max(peak.helperRSS, m.helperRSS)
		d, _ := run(shell, "auto", false)
		on += d
		d, _ = run(shell, "off", false)
		off += d
		d, _ = run(oneTurn, "auto", false)
		base += d
		floor += spawns()
	}
	n := time.Duration(b.N)
	b.Logf("each timed run, mean: %d shell calls %v (sandbox off %v), one turn %v; %d bash -c true %v",
		shellTurns, on/n, off/n, base/n, shellTurns, floor/n)
	perCall := func(d time.Duration) float64 {
		return float64((d - base - floor).Microseconds()) / float64(b.N*shellTurns) / 1000
	}
	b.Logf("tree peak %.1f MB, main peak %.1f MB, helper %.1f MB (peak %.1f MB), %.3f ms per shell call (sandbox %.3f ms), bash -c true %.3f ms",
		float64(peak.tree)/(1<<20), float64(peak.main)/(1<<20), float64(peak.helperRSS)/(1<<20), float64(peak.helperPeak)/(1<<20),
		perCall(on), perCall(on)-perCall(off), float64(floor.Microseconds())/float64(b.N*shellTurns)/1000)
	b.ReportMetric(float64(floorMem)/(1<<20), "floor-MB")
	b.ReportMetric(float64(peak.tree)/(1<<20), "tree-peak-MB")
	b.ReportMetric(float64(peak.raw)/(1<<20), "tree-raw-peak-MB")
	b.Logf("tree peak summed without counting an address space twice %.1f MB, every resident set summed %.1f MB (samples with a child sharing its parent's memory: %d; processes kcmp would not compare: %d)",
		float64(peak.tree)/(1<<20), float64(peak.raw)/(1<<20), peak.shared, peak.uncompared)
	b.ReportMetric(float64(peak.main)/(1<<20), "main-peak-MB")
	b.ReportMetric(float64(peak.helperRSS)/(1<<20), "helper-rss-MB")
	b.ReportMetric(float64(peak.helperPeak)/(1<<20), "helper-peak-MB")
	b.ReportMetric(perCall(on), "ms/shell-call")
	b.ReportMetric(perCall(on)-perCall(off), "sandbox-ms/call")
	b.ReportMetric(float64(floor.Microseconds())/float64(b.N*shellTurns)/1000, "floor-ms/spawn")
	for _, c := range []struct {
		what      string
		got, want int64
		ceiling   int64
	}{{"process tree peak", peak.tree, treePeakTarget, treePeakCeiling}, {"process tree peak, every resident set summed", peak.raw, rawPeakCeiling, rawPeakCeiling}, {"main process peak", peak.main, mainPeakTarget, mainPeakCeiling}, {"sandbox helper resident", peak.helperRSS, helperTarget, helperCeiling}} {
		switch {
		case c.got > c.ceiling:
			b.Errorf("%s %.1f MB, past its ceiling of %d MB (target %d MB)", c.what, float64(c.got)/(1<<20), c.ceiling>>20, c.want>>20)
		case c.got > c.want:
			b.Logf("MISSED TARGET: %s %.1f MB, target %d MB", c.what, float64(c.got)/(1<<20), c.want>>20)
		}
	}
}
