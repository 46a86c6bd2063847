package input

import (
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/rubichan/rubichan/run/session"
)

//go:embed prompt_base.md
var basePrompt string

//go:embed prompt_headless.md
var headlessPrompt string

//go:embed prompt_line.md
var linePrompt string

// The words of the base prompt that say how rubichan runs, and what line
// mode says instead.
const (
	headlessWords = "running non-interactively in a pipeline"
	lineWords     = "working with a person in a line-mode chat at a terminal"
)

// contextFileNames are the instruction files added to the system prompt, in
// the order they are looked for in each directory.
var contextFileNames = []string{"AGENTS.md", "AGENT.md", "CLAUDE.md"}

// contextFileMax caps the bytes of one context file put in the prompt.
const contextFileMax = 32 << 10

// PromptOptions are the inputs of the system prompt.
type PromptOptions struct {
	Root           string    // absolute workspace root
	Now            time.Time // the date shown
	Replace        string    // --system-prompt: replaces the base prompt
	Append         string    // --append-system-prompt
	NoContextFiles bool
	// Readable says whether the read rules allow a path (workspace-relative
	// in slash form): a context file that is a symlink into the workspace
	// is included only if its target is readable. nil allows none.
	Readable func(path string) bool
	// LineMode is a chat with a person (rubichan chat): the prompt says
	// so instead of the headless addendum.
	LineMode bool
	// Subqueries adds the few lines about `rubichan query`: with a
	// spilled stdin or --subqueries (never under --no-subqueries).
	Subqueries bool
}

// subqueryPrompt tells the model about sub-queries.
const subqueryPrompt = "Sub-queries: in bash, `rubichan query PROMPT` asks a model without tools one question about its standard input and prints the answer; " +
	"`rubichan query --split FILE --chunk 2MB PROMPT` asks it of every chunk of a file and prints one JSON line per chunk with its byte range (offset, length); " +
	"`--batch` reads JSON lines {\"prompt\",\"input\"} or {\"prompt\",\"file\",\"offset\",\"length\"}. " +
	"Use them for questions about the whole of an input too large to read (count, classify, summarise every part), then read the parts the answers point to. They count against the run's budget."

// SystemPrompt builds the system prompt: the base prompt (or its
// replacement) with the headless addendum, any appended text, and the
// context files from the repository root down to the workspace, each in a
// tagged block with its path. Tools describe themselves in their specs.
func SystemPrompt(opt PromptOptions) (string, error) {
	parts, err := SystemPromptParts(opt)
	if err != nil {
		return "", err
	}
	return JoinParts(parts), nil
}

// SystemPromptParts returns the system prompt in its named parts, which
// joined by a blank line are the prompt; the session records them.
func SystemPromptParts(opt PromptOptions) ([]session.PromptPart, error) {
	var parts []session.PromptPart
	if opt.Replace != "" {
		parts = append(parts, session.PromptPart{Name: "replace", Text: strings.TrimSpace(opt.Replace)})
	} else {
		r := strings.NewReplacer("{{root}}", opt.Root, "{{os}}", runtime.GOOS+"/"+runtime.GOARCH,
			"{{date}}", opt.Now.Format("2006-01-02"))
		base := strings.TrimSpace(r.Replace(basePrompt))
		if opt.LineMode {
			base = strings.Replace(base, headlessWords, lineWords, 1)
		}
		parts = append(parts, session.PromptPart{Name: "base", Text: base})
	}
	if opt.LineMode {
		parts = append(parts, session.PromptPart{Name: "line-mode", Text: strings.TrimSpace(linePrompt)})
	} else {
		parts = append(parts, session.PromptPart{Name: "headless", Text: strings.TrimSpace(headlessPrompt)})
	}
	if opt.Subqueries {
		parts = append(parts, session.PromptPart{Name: "subqueries", Text: subqueryPrompt})
	}
	if a := strings.TrimSpace(opt.Append); a != "" {
		parts = append(parts, session.PromptPart{Name: "append", Text: a})
	}
	if !opt.NoContextFiles {
		files, err := findContextFiles(opt.Root, opt.Readable)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			parts = append(parts, session.PromptPart{Name: "context-file " + f.display,
				Text: fmt.Sprintf("<context-file path=%q>\n%s</context-file>", f.display, withNewline(f.text))})
		}
	}
	return parts, nil
}

// JoinParts is the system prompt of its parts.
func JoinParts(parts []session.PromptPart) string {
	texts := make([]string, len(parts))
	for i, p := range parts {
		texts[i] = p.Text
	}
	return strings.Join(texts, "\n\n")
}

type contextFile struct {
	display string // path relative to the workspace root, slash-separated
	text    string
}

// findContextFiles returns the context files from the repository root (the
// nearest directory up from root holding .git) down to root, outer first so
// that nearer instructions come last. Without a repository only root itself
// is searched. A file reached twice (CLAUDE.md linked to AGENTS.md) is
// included once.
//
// A context file may be a symlink, which a pull request can commit: it is
// followed only to a file inside the repository (or the workspace, without
// one), and then only to a file the read rules allow (readable, for a
// target in the workspace) or to another context file (a target above the
// workspace). Otherwise `AGENTS.md -> /proc/self/environ` would put the
// process's API key in the prompt, and `-> ~/.ssh/id_rsa` or `-> .env` any
// file the tools may not read.
func findContextFiles(root string, readable func(string) bool) ([]contextFile, error) {
	dirs := []string{root}
	for d := root; !isRepoRoot(d); {
		parent := filepath.Dir(d)
		if parent == d {
			dirs = dirs[:1] // no repository: the workspace alone
			break
		}
		d = parent
		dirs = append(dirs, d)
	}
	top := dirs[len(dirs)-1]
	var out []contextFile
	var seen []os.FileInfo
	for i := len(dirs) - 1; i >= 0; i-- {
		for _, name := range contextFileNames {
			path := filepath.Join(dirs[i], name)
			li, err := os.Lstat(path)
			if err != nil {
				continue
			}
			if li.Mode()&fs.ModeSymlink != 0 && !linkAllowed(path, root, top, readable) {
				continue
			}
			fi, err := os.Stat(path)
			if err != nil || !fi.Mode().IsRegular() || sameAsAny(fi, seen) {
				continue
			}
			seen = append(seen, fi)
			text, err := readCapped(path, contextFileMax)
			if err != nil {
				return nil, fmt.Errorf("run: context file: %w", err)
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				rel = path
			}
			out = append(out, contextFile{display: filepath.ToSlash(rel), text: text})
		}
	}
	return out, nil
}

// linkAllowed says whether the context file link may be followed: its
// target is in top (the repository root, or the workspace) and is either
// in the workspace root and readable, or above it and a context file.
func linkAllowed(link, root, top string, readable func(string) bool) bool {
	target, err := filepath.EvalSymlinks(link)
	if err != nil {
		return false
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	if t, err := filepath.EvalSymlinks(top); err == nil {
		top = t
	}
	if rel, ok := within(root, target); ok {
		return readable != nil && readable(filepath.ToSlash(rel))
	}
	if _, ok := within(top, target); ok {
		return slices.Contains(contextFileNames, filepath.Base(target))
	}
	return false
}

// within returns target relative to dir when it lies inside dir.
func within(dir, target string) (string, bool) {
	rel, err := filepath.Rel(dir, target)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

func isRepoRoot(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}

func sameAsAny(fi os.FileInfo, seen []os.FileInfo) bool {
	for _, s := range seen {
		if os.SameFile(fi, s) {
			return true
		}
	}
	return false
}

// readCapped reads at most max bytes of a file as valid UTF-8 and says so
// when it cut the rest.
func readCapped(path string, max int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil
		}
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return "", err
	}
	text := strings.ToValidUTF8(string(b), "\uFFFD")
	if int64(len(b)) > max {
		text = strings.ToValidUTF8(string(b[:max]), "") + fmt.Sprintf("\n[cut at %d bytes]\n", max)
	}
	return text, nil
}

// withNewline returns s ending in a newline.
func withNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}
