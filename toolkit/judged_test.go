//go:build unix

package toolkit

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestJudgedReadSymlinkSwap races a process swapping a symlink between an
// allowed and a denied target against reads judged like the runner judges
// them: a read whose resolved path is the denied one is refused, the
// others run on what was judged. No read may return the denied content.
func TestJudgedReadSymlinkSwap(t *testing.T) {
	t.Parallel()
	const reads = 10000
	tests := map[string]struct {
		tree            map[string]string
		link, path      string // the symlink swapped, the path read
		allowed, denied string // the link's two targets
		deniedPath      string // the resolved path the "policy" refuses
	}{
		"file link": {
			tree: map[string]string{"ok.txt": "public\n", ".env": "SECRET=1\n", "link": "->ok.txt"},
			link: "link", path: "link", allowed: "ok.txt", denied: ".env", deniedPath: ".env",
		},
		"directory link": {
			tree: map[string]string{"pub/f": "public\n", "priv/f": "SECRET=1\n", "d": "->pub"},
			link: "d", path: "d/f", allowed: "pub", denied: "priv", deniedPath: "priv/f",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ws := newWS(t, tc.tree)
			read := NewRead(ws, NewReadTracker())
			link := filepath.Join(ws.Root(), tc.link)
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { // the swapper: an atomic rename of a fresh link
				defer wg.Done()
				tmp := link + ".swap"
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					target := tc.allowed
					if i%2 == 1 {
						target = tc.denied
					}
					os.Remove(tmp)
					if os.Symlink(target, tmp) == nil {
						os.Rename(tmp, link)
					}
				}
			}()
			args, _ := json.Marshal(obj{"path": tc.path})
			var leaks, served, refused int
			for range reads {
				eff, err := read.Effects(args)
				if err != nil {
					continue
				}
				if eff.Paths[0].Resolved == tc.deniedPath {
					refused++
					continue
				}
				res, err := SafeRunJudged(context.Background(), read, args, eff)
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case strings.Contains(res.Content, "SECRET"):
					leaks++
				case !res.IsError:
					served++
				}
			}
			close(stop)
			wg.Wait()
			t.Logf("%d reads: %d served, %d refused by the policy, %d leaks", reads, served, refused, leaks)
			if leaks != 0 {
				t.Errorf("%d of %d reads returned the denied file", leaks, reads)
			}
			if served == 0 || refused == 0 {
				t.Errorf("the race did not happen (%d served, %d refused)", served, refused)
			}
		})
	}
}

// TestJudgedWriteLandsWhereJudged checks that a write judged for one
// directory does not follow a symlink swapped in afterwards.
func TestJudgedWriteLandsWhereJudged(t *testing.T) {
	t.Parallel()
	ws := newWS(t, map[string]string{"pub/": "", "priv/": "", "d": "->pub"})
	write := NewWrite(ws, NewReadTracker())
	args, _ := json.Marshal(obj{"path": "d/new.txt", "content": "x"})
	eff, err := write.Effects(args)
	if err != nil || eff.Paths[0].Resolved != "pub/new.txt" {
		t.Fatalf("effects %+v, %v", eff, err)
	}
	link := filepath.Join(ws.Root(), "d")
	os.Remove(link)
	if err := os.Symlink("priv", link); err != nil {
		t.Fatal(err)
	}
	res, err := SafeRunJudged(context.Background(), write, args, eff)
	if err != nil || res.IsError {
		t.Fatalf("write: %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(ws.Root(), "priv", "new.txt")); err == nil {
		t.Error("the write followed the swapped link into priv/")
	}
	if got := readFileT(t, ws, "pub/new.txt"); got != "x" {
		t.Errorf("pub/new.txt = %q", got)
	}
}
