package session

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Ext is the file name extension of a session file.
const Ext = ".jsonl"

// DefaultDir returns the directory sessions go to by default:
// $XDG_STATE_HOME/rubichan/sessions, else home/.local/state/rubichan/sessions.
// A relative $XDG_STATE_HOME is ignored, as the XDG specification says.
// It returns "" when neither is known.
func DefaultDir(lookupEnv func(string) (string, bool), home string) string {
	if dir, ok := lookupEnv("XDG_STATE_HOME"); ok && filepath.IsAbs(dir) {
		return filepath.Join(dir, "rubichan", "sessions")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".local", "state", "rubichan", "sessions")
}

// CheckID returns what is wrong with a session id, or nil: an id is 1 to
// 128 letters, digits, '-', '_' and '.', and not "." or "..".
func CheckID(id string) error {
	if len(id) == 0 || len(id) > 128 || id == "." || id == ".." || strings.IndexFunc(id, notIDRune) >= 0 {
		return fmt.Errorf("session id %q: use 1 to 128 letters, digits, '-', '_' and '.'", id)
	}
	return nil
}

// notIDRune reports a rune a session id may not hold: anything but ASCII
// letters, digits, '-', '_' and '.'. (A checked loop rather than a regexp:
// `{1,128}` compiled into 128 copies of the class at every start-up.)
func notIDRune(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '-', r == '_', r == '.':
		return false
	}
	return true
}

// NewID returns a fresh id: the UTC start time to the millisecond and a
// random suffix, so that ids sort by time and never collide.
func NewID(start time.Time) (string, error) {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("session: %w", err)
	}
	return start.UTC().Format("20060102T150405.000Z") + "-" + hex.EncodeToString(b[:]), nil
}

// IDOf returns the id of the session file path: its name without [Ext].
func IDOf(path string) string { return strings.TrimSuffix(filepath.Base(path), Ext) }

// Store is a directory of session files, one per session, named ID.jsonl.
type Store struct {
	Dir string
}

// Path returns the file of session id.
func (st Store) Path(id string) string { return filepath.Join(st.Dir, id+Ext) }

// Make creates the directory (0700) if it does not exist.
func (st Store) Make() error {
	if err := os.MkdirAll(st.Dir, 0o700); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	return nil
}

// CreateNew creates a new session file with a fresh id (retrying the rare
// collision) and locks it.
func (st Store) CreateNew(start time.Time, opt Options) (*Writer, error) {
	if err := st.Make(); err != nil {
		return nil, err
	}
	for range 5 {
		id, err := NewID(start)
		if err != nil {
			return nil, err
		}
		w, err := Create(st.Path(id), opt)
		if isExist(err) {
			continue
		}
		return w, err
	}
	return nil, fmt.Errorf("session: no free file name in %s", st.Dir)
}

// Resolve returns the file a reference names: a path when it holds a
// path separator or ends in [Ext], else an id in the store. The file must
// exist.
func (st Store) Resolve(ref string) (string, error) {
	if ref == "" {
		return "", errors.New("empty session id")
	}
	if strings.ContainsRune(ref, filepath.Separator) || strings.ContainsRune(ref, '/') || strings.HasSuffix(ref, Ext) {
		abs, err := filepath.Abs(ref)
		if err != nil {
			return "", err
		}
		if _, err := os.Stat(abs); err != nil {
			return "", fmt.Errorf("session file: %w", err)
		}
		return abs, nil
	}
	if err := CheckID(ref); err != nil {
		return "", err
	}
	if st.Dir == "" {
		return "", fmt.Errorf("no session %q: no state directory is known (neither $XDG_STATE_HOME nor $HOME is set)", ref)
	}
	p := st.Path(ref)
	if _, err := os.Stat(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("no session %q in %s", ref, st.Dir)
		}
		return "", fmt.Errorf("session %q: %w", ref, err)
	}
	return p, nil
}

// Info is what `rubichan sessions list` shows of one session.
type Info struct {
	ID        string `json:"id"`
	Path      string `json:"path"`
	Created   string `json:"created"`
	Updated   string `json:"updated"`
	Workspace string `json:"workspace"`
	Prompt    string `json:"prompt"`
	Runs      int    `json:"runs"`
	Turns     int    `json:"turns"`
	Status    string `json:"status"` // the last run's, or "running" / "incomplete" when it has no end line
	Pending   int    `json:"pending,omitempty"`
}

// List returns the sessions in the store, newest (last updated) first,
// only those of workspace unless it is "". Files that are not sessions
// are skipped.
func (st Store) List(workspace string) ([]Info, error) {
	entries, err := os.ReadDir(st.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	var out []Info
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), Ext) {
			continue
		}
		info, err := Stat(filepath.Join(st.Dir, e.Name()))
		if err != nil || (workspace != "" && info.Workspace != workspace) {
			continue
		}
		out = append(out, info)
	}
	slices.SortFunc(out, func(a, b Info) int {
		if c := strings.Compare(b.Updated, a.Updated); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return out, nil
}

// Newest returns the file of the newest session of workspace, or "".
func (st Store) Newest(workspace string) (string, error) {
	list, err := st.List(workspace)
	if err != nil || len(list) == 0 {
		return "", err
	}
	return list[0].Path, nil
}

// Stat summarises the session file path.
func Stat(path string) (Info, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Info{}, err
	}
	info := Info{ID: IDOf(path), Path: path}
	n := 0
	var last Line
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		line := data[:i]
		data = data[i+1:]
		n++
		var l struct {
			Type      string    `json:"type"`
			Time      string    `json:"time"`
			Format    int       `json:"format"`
			Workspace string    `json:"workspace"`
			Prompt    *string   `json:"prompt"`
			Status    string    `json:"status"`
			Pending   []Pending `json:"pending"`
		}
		if n > 1 && !bytes.HasPrefix(line, []byte(`{"type":"run"`)) && !bytes.HasPrefix(line, []byte(`{"type":"end"`)) &&
			!bytes.HasPrefix(line, []byte(`{"type":"turn"`)) {
			if t := timeOf(line); t != "" {
				info.Updated = t
			}
			continue
		}
		if json.Unmarshal(line, &l) != nil {
			continue
		}
		info.Updated = l.Time
		switch l.Type {
		case TypeHeader:
			info.Created, info.Workspace = l.Time, l.Workspace
			if l.Prompt != nil {
				info.Prompt = *l.Prompt
			}
			info.Runs = 1
			last = Line{}
		case TypeRun:
			info.Runs++
			last = Line{}
		case TypeTurn:
			info.Turns++
		case TypeEnd:
			last = Line{Status: l.Status, Pending: l.Pending}
		}
		if n == 1 && l.Type != TypeHeader {
			return Info{}, fmt.Errorf("%s: %w", path, ErrFormat)
		}
	}
	if n == 0 {
		return Info{}, fmt.Errorf("%s: %w", path, ErrFormat)
	}
	info.Status, info.Pending = last.Status, len(last.Pending)
	if info.Status == "" {
		info.Status = "incomplete"
		if inUse(path) {
			info.Status = "running"
		}
	}
	return info, nil
}

var timeKey = []byte(`"time":"`)

// timeOf returns the "time" of a line without decoding it.
func timeOf(line []byte) string {
	i := bytes.Index(line, timeKey)
	if i < 0 {
		return ""
	}
	rest := line[i+len(timeKey):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}

// inUse reports whether another process holds the lock of path.
func inUse(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return errors.Is(lockFile(f), errLocked)
}

// Remove deletes session id. A session in use is not removed.
func (st Store) Remove(id string) error {
	p, err := st.Resolve(id)
	if err != nil {
		return err
	}
	f, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	defer f.Close()
	if err := lockFile(f); errors.Is(err, errLocked) {
		return &InUseError{Path: p, PID: lastPID(p)}
	}
	if err := os.Remove(p); err != nil {
		return fmt.Errorf("session: %w", err)
	}
	return nil
}

// lastPID returns the pid of the last run of the session file path, or 0.
func lastPID(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid := 0
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			i = len(data)
		}
		line := data[:i]
		data = data[min(i+1, len(data)):]
		if !bytes.HasPrefix(line, []byte(`{"type":"run"`)) && !bytes.HasPrefix(line, []byte(`{"type":"session"`)) {
			continue
		}
		var l struct {
			PID int `json:"pid"`
		}
		if json.Unmarshal(line, &l) == nil && l.PID > 0 {
			pid = l.PID
		}
	}
	return pid
}
