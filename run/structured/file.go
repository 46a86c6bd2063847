package structured

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// MaxSchemaSize is the largest schema file read.
const MaxSchemaSize = 1 << 20

// readSchemaFile reads the schema file path. The file may come from an
// untrusted checkout, so when path lies inside workspace ("": no
// workspace) its links must not lead out of it: a link to a JSON file
// elsewhere (~/.docker/config.json) would compile, and its text would
// go to the provider and into the session log. Anything but a regular
// file (/dev/zero, /dev/stdin) is refused unread, and so is a file over
// MaxSchemaSize.
func readSchemaFile(path, workspace string) ([]byte, error) {
	if workspace != "" {
		if err := confined(path, workspace); err != nil {
			return nil, err
		}
	}
	if fi, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("structured: read schema: %w", err)
	} else if !fi.Mode().IsRegular() {
		return nil, &Error{File: path, Msg: "not a regular file"}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("structured: read schema: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, &Error{File: path, Msg: "not a regular file"}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSchemaSize+1))
	if err != nil {
		return nil, fmt.Errorf("structured: read schema: %w", err)
	}
	if len(data) > MaxSchemaSize {
		return nil, &Error{File: path, Msg: fmt.Sprintf("larger than %d bytes", MaxSchemaSize)}
	}
	return data, nil
}

// confined refuses a path inside workspace whose links lead out of it.
func confined(path, workspace string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("structured: read schema: %w", err)
	}
	ws, err := filepath.Abs(workspace)
	if err != nil {
		return fmt.Errorf("structured: read schema: %w", err)
	}
	realWS := ws
	if r, err := filepath.EvalSymlinks(ws); err == nil {
		realWS = r
	}
	if !inside(abs, ws) && !inside(abs, realWS) {
		return nil // the user's own file, outside the checkout
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return fmt.Errorf("structured: read schema: %w", err)
	}
	if !inside(real, realWS) {
		return &Error{File: path, Msg: "a link that leads outside the workspace (to " + real + "); a checkout's link is not followed: copy the schema into the workspace"}
	}
	return nil
}

// inside reports whether path lies in dir (or is dir).
func inside(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
