package run

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/rubichan/rubichan/run/events"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/session"
	"github.com/rubichan/rubichan/run/sink"
)

// buildInfo is what the binary knows about its own build: printed by
// `rubichan version` and written in the session header, so a run can be
// traced to the code that made it.
type buildInfo struct {
	Version  string // the -ldflags version, a module version tag, or "dev"
	Commit   string // the VCS revision, 12 hex digits; "" when unknown
	Modified bool   // built from a work tree with uncommitted changes
	Go       string // the Go toolchain, such as "go1.26.0"
}

// pseudoVersionRE matches the pseudo-versions the go command stamps on a
// build from a VCS checkout (v0.0.0-20261123203219-1a2b3c4d5e6f): they
// say no more than the commit does. (Compiled at its first use: most
// starts never need it.)
var pseudoVersionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`-(0\.)?\d{14}-[0-9a-f]{12}`) })

// readBuildInfo returns the running binary's build information.
func readBuildInfo() buildInfo {
	bi, _ := debug.ReadBuildInfo()
	return parseBuildInfo(version, bi)
}

// parseBuildInfo turns the version set at link time (v, "dev" when none)
// and the binary's build information (nil when unavailable) into a
// [buildInfo].
func parseBuildInfo(v string, bi *debug.BuildInfo) buildInfo {
	b := buildInfo{Version: v}
	if bi == nil {
		return b
	}
	b.Go = bi.GoVersion
	mv := strings.TrimSuffix(bi.Main.Version, "+dirty")
	if b.Version == "dev" && mv != "" && mv != "(devel)" && !pseudoVersionRE().MatchString(mv) {
		b.Version = mv
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value[:min(12, len(s.Value))]
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// String renders "dev (commit 1a2b3c4d5e6f, modified; go1.26.0)", leaving
// out what is unknown.
func (b buildInfo) String() string {
	var parts []string
	if b.Commit != "" {
		c := "commit " + b.Commit
		if b.Modified {
			c += ", modified"
		}
		parts = append(parts, c)
	}
	if b.Go != "" {
		parts = append(parts, b.Go)
	}
	if len(parts) == 0 {
		return b.Version
	}
	return fmt.Sprintf("%s (%s)", b.Version, strings.Join(parts, "; "))
}

// versionJSON is the object of `rubichan version --json`.
type versionJSON struct {
	Version  string `json:"version"`
	Commit   string `json:"commit"` // "" when unknown
	Modified bool   `json:"modified"`
	Go       string `json:"go"`
	// Schemas are the versions of the formats covered by the
	// compatibility promise (README): they change only with a major
	// version.
	Schemas versionSchemas `json:"schemas"`
}

// versionSchemas are the format versions a script may check.
type versionSchemas struct {
	Events  int `json:"events"`  // events.SchemaVersion, each event's schema_version
	Session int `json:"session"` // session.Format, the session header's format
}

// printVersionJSON writes the build and the format versions as one line
// of JSON.
func printVersionJSON(w io.Writer) error {
	b := readBuildInfo()
	data, err := json.Marshal(versionJSON{
		Version: b.Version, Commit: b.Commit, Modified: b.Modified, Go: b.Go,
		Schemas: versionSchemas{Events: events.SchemaVersion, Session: session.Format},
	})
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "%s\n", data); err != nil {
		return exit.StdoutError{Err: err}
	}
	return nil
}

// sinkBuild is the running binary's build as the session log records it.
func sinkBuild() sink.Build {
	b := readBuildInfo()
	return sink.Build{Version: b.Version, Commit: b.Commit, Modified: b.Modified, Go: b.Go}
}
