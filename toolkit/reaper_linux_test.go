package toolkit

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// noChildren says "none" only when the process has no child: with one
// running it says no, and a process that started none says yes (checked
// in a fresh test process, since this one's other tests start commands).
func TestNoChildren(t *testing.T) {
	if os.Getenv("RUBICHAN_TEST_NO_CHILDREN") == "1" {
		if !noChildren() {
			os.Exit(3)
		}
		os.Exit(0)
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	if noChildren() {
		t.Fatal("noChildren with a child running")
	}
	fresh := exec.Command(os.Args[0], "-test.run=^TestNoChildren$")
	fresh.Env = append(os.Environ(), "RUBICHAN_TEST_NO_CHILDREN=1")
	if out, err := fresh.CombinedOutput(); err != nil {
		t.Fatalf("a process with no child: %v\n%s", err, out)
	}
}

// An orphan adopted by a subreaper is listed by adoptedPIDs, which reads
// only the first thread's children, even when the command that left it
// was started from another thread (checked in a fresh test process, which
// becomes a subreaper).
func TestAdoptedPIDs(t *testing.T) {
	if os.Getenv("RUBICHAN_TEST_ADOPTED") == "1" {
		os.Exit(adoptedChild())
	}
	fresh := exec.Command(os.Args[0], "-test.run=^TestAdoptedPIDs$")
	fresh.Env = append(os.Environ(), "RUBICHAN_TEST_ADOPTED=1")
	if out, err := fresh.CombinedOutput(); err != nil {
		t.Fatalf("the orphan was not found among the first thread's children: %v\n%s", err, out)
	}
}

// adoptedChild is TestAdoptedPIDs in its fresh process: 0 when the orphan
// is found.
func adoptedChild() int {
	if err := BecomeSubreaper(); err != nil {
		fmt.Println("subreaper:", err)
		return 2
	}
	// Start the command from a thread that is not the first one: of two
	// goroutines, each locked to its own thread, at most one is on it.
	hold := make(chan struct{})
	defer close(hold)
	out := make(chan []byte, 1)
	var once sync.Once
	for range 2 {
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			if syscall.Gettid() == os.Getpid() {
				<-hold
				return
			}
			once.Do(func() {
				b, _ := exec.Command("sh", "-c", "sleep 30 >/dev/null 2>&1 & echo $!").Output()
				out <- b
			})
			<-hold
		}()
	}
	b := <-out
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		fmt.Printf("pid %q: %v\n", b, err)
		return 2
	}
	defer killAndReap(pid)
	for range 200 { // the shell has exited; the sleep is being handed over
		if slices.Contains(adoptedPIDs(), pid) {
			return 0
		}
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Printf("orphan %d not in %v (all threads: %v)\n", pid, adoptedPIDs(), childPIDs())
	return 3
}
