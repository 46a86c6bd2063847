package run

import (
	"fmt"
	"os"
	"path/filepath"
)

// writeLastMessage writes -o/--output-last-message: the final message
// with a trailing newline, to path (nothing when path is empty), through
// a temporary file renamed over it, so a reader never sees half of it. A
// run that ended before any message writes an empty file: what was there
// from an earlier run does not pass for this one's answer.
func writeLastMessage(path, text string) error {
	if path == "" {
		return nil
	}
	if text != "" {
		text += "\n"
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".rubichan-last-*")
	if err != nil {
		return fmt.Errorf("run: --output-last-message: %w", err)
	}
	err = tmp.Chmod(0o644)
	if err == nil {
		_, err = tmp.WriteString(text)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("run: --output-last-message: %w", err)
	}
	return nil
}
