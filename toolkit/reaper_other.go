//go:build !linux

package toolkit

import "errors"

// BecomeSubreaper is not available outside Linux.
func BecomeSubreaper() error { return errors.ErrUnsupported }

func isSubreaper() bool  { return false }
func noChildren() bool   { return true }
func childPIDs() []int   { return nil }
func adoptedPIDs() []int { return nil }
func killAndReap(int)    {}
func groupGone(int) bool { return true }
