//go:build unix

package toolkit

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// killWriteEnv makes the test binary the writer that gets killed.
const killWriteEnv = "RUBICHAN_TEST_KILL_WRITE"

// TestKillDuringWrite kills a process with SIGKILL in the middle of a big
// atomic write (its data written, not yet named) and checks that nothing
// is left in the directory but the target as it was before.
func TestKillDuringWrite(t *testing.T) {
	if spec := os.Getenv(killWriteEnv); spec != "" {
		killWriteChild(t, spec)
		return
	}
	t.Parallel()
	for _, existing := range []bool{true, false} {
		name := map[bool]string{true: "replace", false: "create"}[existing]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if existing {
				mkTree(t, dir, map[string]string{"big.txt": "old\n"})
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestKillDuringWrite$")
			cmd.Env = append(os.Environ(), killWriteEnv+"="+dir)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(out).ReadString('\n')
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			if !strings.HasPrefix(line, "writing") {
				t.Fatalf("the writer said %q", line)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			want := map[bool]string{true: "big.txt", false: ""}[existing]
			if strings.Join(names, " ") != want {
				t.Errorf("left in the directory: %q, want %q", names, want)
			}
			if existing {
				if b, _ := os.ReadFile(filepath.Join(dir, "big.txt")); string(b) != "old\n" {
					t.Errorf("target changed to %d bytes", len(b))
				}
			}
		})
	}
}

// killWriteChild writes 64 MB to big.txt in dir and stops, after the data
// is written, until it is killed.
func killWriteChild(t *testing.T, dir string) {
	ws, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	loc, err := ws.resolve("big.txt")
	if err != nil {
		t.Fatal(err)
	}
	aw := atomicWriter{sync: func(*os.File) error {
		os.Stdout.WriteString("writing\n")
		time.Sleep(time.Minute)
		return nil
	}}
	aw.write(loc, make([]byte, 64<<20), 0o644)
	t.Fatal("not killed")
}
