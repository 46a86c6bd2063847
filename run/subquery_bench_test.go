package run

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rubichan/rubichan/llm/llmtest"
)

// fanOutSize is the stdin of BenchmarkSubqueryFanOut. The issue's
// figure is for 1 GB (-subquery.size=1073741824); the default keeps `make
// bench BENCHTIME=1x` short on a small machine.
var fanOutSize = flag.Int64("subquery.size", 64<<20, "bytes of stdin BenchmarkSubqueryFanOut splits into 5,000 chunks")

// Targets of the issue.
const (
	fanOutChunks       = 5000
	fanOutParentTarget = 60 << 20
	fanOutChildTarget  = 20 << 20
)

// BenchmarkSubqueryFanOut pipes -subquery.size bytes into `rubichan exec`,
// whose scripted model runs `rubichan query --split` over the spill in
// 5,000 chunks at concurrency 8 through the run, and reports the peak RSS
// of the run (target 60 MB) and of the query command (target 20 MB),
// and the wall time per sub-query.
func BenchmarkSubqueryFanOut(b *testing.B) {
	bin := buildRubichan(b)
	chunk := *fanOutSize/fanOutChunks + 1
	script := llmtest.Script{Turns: []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{{Name: "bash", Args: []string{fmt.Sprintf(
			`{"command":"rubichan query --split $SPILL --chunk %dB --concurrency 8 'NONE or the error' | tail -c 200","timeout":1800}`, chunk)}}}},
		{Text: []string{"done"}},
	}, Answers: []llmtest.Answer{{Turn: llmtest.Turn{Text: []string{"NONE"}, Usage: llmtest.Usage{InputTokens: 1000, OutputTokens: 2}}}}}
	var parent, child int64
	var total time.Duration
	for b.Loop() {
		srv := newScriptServer(script)
		srv.ForgetBodies()
		cmd := exec.Command(bin, "exec", "-C", b.TempDir(), "--quiet", "--no-session", "--allow", "shell:tail -c 200",
			"--query-concurrency", "8", "--max-queries", "0", "--timeout", "0", "find the error")
		cmd.Env = append(benchEnv(b, srv.URL()), "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"))
		cmd.Stdin = io.LimitReader(zeroLines{}, *fanOutSize)
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		watch := watchQueryRSS()
		start := time.Now()
		rss, err := runPeakRSS(cmd)
		total += time.Since(start)
		child = max(child, watch())
		n := len(srv.Requests())
		srv.Close()
		if err != nil || out.String() != "done\n" || n < fanOutChunks {
			b.Fatalf("run: %v, %d requests\nstdout: %s\nstderr: %s", err, n, out.String(), errOut.String())
		}
		parent = max(parent, rss)
	}
	b.ReportMetric(float64(parent)/(1<<20), "MB-parent-peak-RSS")
	b.ReportMetric(float64(child)/(1<<20), "MB-query-peak-RSS")
	b.ReportMetric(float64(total.Microseconds())/float64(b.N*fanOutChunks)/1000, "ms/subquery-wall")
	if parent > fanOutParentTarget || child > fanOutChildTarget {
		b.Errorf("peak RSS: run %.1f MB (target 60), query %.1f MB (target 20)", float64(parent)/(1<<20), float64(child)/(1<<20))
	}
}

// watchQueryRSS polls the peak RSS of every `rubichan query` process
// until the returned function is called, which returns the largest.
func watchQueryRSS() func() int64 {
	stop := make(chan struct{})
	var mu sync.Mutex
	var peak int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
			for _, d := range dirs {
				cl, err := os.ReadFile(d)
				if err != nil || !strings.Contains(string(cl), "rubichan\x00query\x00") {
					continue
				}
				if rss := vmHWM(filepath.Join(filepath.Dir(d), "status")); rss > 0 {
					mu.Lock()
					peak = max(peak, rss)
					mu.Unlock()
				}
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	return func() int64 {
		close(stop)
		wg.Wait()
		return peak
	}
}

// vmHWM reads the peak RSS from a /proc/PID/status file.
func vmHWM(status string) int64 {
	f, err := os.Open(status)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(v), "%d", &kb)
			return kb << 10
		}
	}
	return 0
}
