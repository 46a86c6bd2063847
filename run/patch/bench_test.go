package patch

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// benchDir holds the generated repository, made once per process: a
// benchmark function runs several times (b.N = 1 first).
var benchDir = struct {
	once sync.Once
	dir  string
	err  error
}{}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir.dir != "" {
		os.RemoveAll(filepath.Dir(benchDir.dir))
	}
	os.Exit(code)
}

// benchRepo returns the generated repository (see genRepo).
func benchRepo(b *testing.B) (string, []string) {
	benchDir.once.Do(func() {
		tmp, err := os.MkdirTemp("", "rubichan-bench-")
		if err != nil {
			benchDir.err = err
			return
		}
		benchDir.dir = filepath.Join(tmp, "repo")
		genRepo(b, benchDir.dir)
	})
	if benchDir.err != nil {
		b.Fatal(benchDir.err)
	}
	return benchDir.dir, testEnv(b)
}

// genRepo generates a committed git repository of 10,000 files and
// 200 MB (20 KB each, in 100 directories) of text lines: source-like,
// neither random bytes nor one repeated line.
func genRepo(b *testing.B, dir string) {
	b.Helper()
	env := testEnv(b)
	words := strings.Fields("func return if else for range var const type struct interface map chan go defer err nil ctx string int byte")
	rng := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	for d := 0; d < 100; d++ {
		sub := filepath.Join(dir, fmt.Sprintf("pkg%03d", d))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := 0; f < 100; f++ {
			sb.Reset()
			for sb.Len() < 20<<10 {
				fmt.Fprintf(&sb, "%s %s_%d(%s) // %x\n", words[rng.IntN(len(words))], words[rng.IntN(len(words))], rng.IntN(1000), words[rng.IntN(len(words))], rng.Uint64())
			}
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%03d.go", f)), []byte(sb.String()[:20<<10]), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	sh(b, env, dir, "git", "init", "-q", "-b", "main")
	sh(b, env, dir, "git", "add", "-A")
	sh(b, env, dir, "git", "-c", "gc.auto=0", "commit", "-q", "-m", "generated")
	sh(b, env, dir, "git", "repack", "-adq")
	sh(b, env, dir, "git", "prune-packed")
}

// cpuTime is the CPU time (user + system) of this process and its
// finished children so far: git does the work, and on a shared machine
// the wall-clock time also counts other processes' load.
func cpuTime() time.Duration {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime)
}

// BenchmarkPrepareGit makes the private copy of the generated repository
// with a few uncommitted changes (target: 2 s).
func BenchmarkPrepareGit(b *testing.B) {
	dir, env := benchRepo(b)
	// Uncommitted changes, made once (the repository is shared).
	writeFiles(b, dir, map[string]string{"pkg000/f000.go": "changed\n", "untracked.go": "new\n"})
	tmp := b.TempDir()
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c0 := cpuTime()
		c, err := Prepare(context.Background(), dir, Options{Env: env, TempDir: tmp})
		if err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - c0
		b.StopTimer()
		c.Close()
		b.StartTimer()
	}
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkWritePatch writes the patch of a copy of the generated
// repository where the agent changed 20 files and added 5 (target: 1 s).
func BenchmarkWritePatch(b *testing.B) {
	dir, env := benchRepo(b)
	c, err := Prepare(context.Background(), dir, Options{Env: env, TempDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	files := map[string]string{}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("pkg%03d/f%03d.go", i*5, i)] = fmt.Sprintf("rewritten %d\n", i)
	}
	for i := 0; i < 5; i++ {
		files[fmt.Sprintf("new/n%d.go", i)] = "package new\n"
	}
	writeFiles(b, c.Root, files)
	c0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Write(context.Background(), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuTime()-c0).Seconds()/float64(b.N), "cpu-s/op")
}
