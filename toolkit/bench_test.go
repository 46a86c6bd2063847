package toolkit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// genTree writes a source-like tree of dirs×subdirs×files files of about
// fileBytes each under root; every 50th file holds processRequestHandler.
func genTree(b *testing.B, root string, dirs, subdirs, files, fileBytes int) (total int64) {
	b.Helper()
	rng := rand.New(rand.NewPCG(7, 11))
	words := []string{"func", "return", "if", "err", "nil", "ctx", "value", "buffer", "index", "count",
		"result", "handler", "server", "client", "request", "response", ":=", "{", "}", "(", ")", "//", "string", "int"}
	var buf bytes.Buffer
	n := 0
	for d := range dirs {
		for s := range subdirs {
			dir := filepath.Join(root, fmt.Sprintf("pkg%02d", d), fmt.Sprintf("sub%02d", s))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			for f := range files {
				buf.Reset()
				for buf.Len() < fileBytes {
					indent := rng.IntN(3)
					buf.WriteString(strings.Repeat("\t", indent))
					for range 4 + rng.IntN(8) {
						buf.WriteString(words[rng.IntN(len(words))])
						buf.WriteByte(' ')
					}
					buf.WriteByte('\n')
				}
				if n%50 == 0 {
					buf.WriteString("func processRequestHandler(w http.ResponseWriter) {}\n")
				}
				n++
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%03d.go", f)), buf.Bytes(), 0o644); err != nil {
					b.Fatal(err)
				}
				total += int64(buf.Len())
			}
		}
	}
	return total
}

// BenchmarkGrepVsGNUGrep searches a generated tree of 20,000 files (about
// 200 MB) with the grep tool and with `grep -rn` in the same iteration, and
// reports the time of each and their ratio. The machine may be shared:
// the ratio is the figure to read.
func BenchmarkGrepVsGNUGrep(b *testing.B) {
	gnu, err := exec.LookPath("grep")
	if err != nil {
		b.Skip("grep not installed")
	}
	root := b.TempDir()
	size := genTree(b, root, 20, 10, 100, 10<<10)
	b.Logf("tree: 20000 files, %d MB", size>>20)
	ws, err := OpenWorkspace(root)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	tool := NewGrep(ws, nil)
	for _, bc := range []struct {
		name, pattern string
		gnuArgs       []string
		matches       int
	}{
		{"literal", "processRequestHandler", []string{"-rn", "processRequestHandler"}, 400},
		{"regex", `\w+Handler\(`, []string{"-rnE", `\w+Handler\(`}, 400},
		{"case-insensitive", "PROCESSREQUEST", []string{"-rni", "PROCESSREQUEST"}, 400},
		// Only single common bytes are required, "(" on nearly every line.
		{"common-bytes", `\w+\(\w \w+\.\w+\)`, []string{"-rnE", `\w+\(\w \w+\.\w+\)`}, 400},
		// No literal at all: every line goes through the regexp.
		{"no-literal", `[a-z]+[A-Z][a-z]+[A-Z]\w+`, []string{"-rnE", `[a-z]+[A-Z][a-z]+[A-Z]\w+`}, 400},
	} {
		b.Run(bc.name, func(b *testing.B) {
			args, _ := json.Marshal(obj{"pattern": bc.pattern, "max_results": 100000,
				"case_insensitive": bc.gnuArgs[0] == "-rni"})
			runOurs := func() time.Duration {
				start := time.Now()
				res, err := tool.Run(context.Background(), args)
				if err != nil || res.IsError {
					b.Fatalf("grep tool: %v %s", err, res.Content)
				}
				if got := strings.Count(res.Content, "\n") - 1; got != bc.matches {
					b.Fatalf("grep tool found %d matches, want %d", got, bc.matches)
				}
				return time.Since(start)
			}
			runGNU := func() time.Duration {
				cmd := exec.Command(gnu, append(bc.gnuArgs, root)...)
				cmd.Env = append(os.Environ(), "LC_ALL=C") // its fastest mode
				cmd.Stdout = io.Discard
				start := time.Now()
				if err := cmd.Run(); err != nil {
					b.Fatalf("grep -rn: %v", err)
				}
				return time.Since(start)
			}
			runOurs() // warm the page cache for both
			runGNU()
			b.ResetTimer()
			var ours, theirs time.Duration
			for range b.N {
				ours += runOurs()
				theirs += runGNU()
			}
			b.ReportMetric(float64(ours.Milliseconds())/float64(b.N), "ours-ms/op")
			b.ReportMetric(float64(theirs.Milliseconds())/float64(b.N), "grep-rn-ms/op")
			b.ReportMetric(float64(ours)/float64(theirs), "ratio")
		})
	}
}

// BenchmarkRead50MB reads a 50 MB text file: the first 2000 lines, with the
// whole file counted and hashed, and a page near the end.
func BenchmarkRead50MB(b *testing.B) {
	root := b.TempDir()
	line := strings.Repeat("abcdefghij", 7) + "\n" // 71 bytes
	nLines := (50 << 20) / len(line)
	content := strings.Repeat(line, nLines)
	if err := os.WriteFile(filepath.Join(root, "big.txt"), []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
	ws, err := OpenWorkspace(root)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	tool := NewRead(ws, NewReadTracker())
	for _, bc := range []struct {
		name string
		args obj
	}{
		{"head", obj{"path": "big.txt"}},
		{"near-end", obj{"path": "big.txt", "offset": nLines - 100}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			args, _ := json.Marshal(bc.args)
			b.SetBytes(int64(len(content)))
			for b.Loop() {
				res, err := tool.Run(context.Background(), args)
				if err != nil || res.IsError || !strings.Contains(res.Content, fmt.Sprintf("(%d lines;", nLines)) {
					b.Fatalf("read: %v %.200s", err, res.Content)
				}
			}
		})
	}
}
