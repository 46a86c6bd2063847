//go:build !linux

package toolkit

import "errors"

// waitExited is not available here: the caller reaps first and kills the
// group's leftovers right after.
func waitExited(int) error { return errors.ErrUnsupported }
