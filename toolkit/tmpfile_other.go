//go:build !linux

package toolkit

import (
	"errors"
	"os"
)

// createAnonymous is not available outside Linux: writes use a named
// temporary file.
func (d *dirHandle) createAnonymous() (*os.File, bool) { return nil, false }

func (d *dirHandle) link(*os.File, string) error { return errors.ErrUnsupported }
