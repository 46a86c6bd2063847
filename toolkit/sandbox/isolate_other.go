//go:build !linux

package sandbox

import (
	"errors"
	"syscall"
)

// Namespaces returns attr: there are no namespaces here.
func (r Rules) Namespaces(attr *syscall.SysProcAttr) *syscall.SysProcAttr { return attr }

// ProbeNamespaces says that namespaces exist on Linux only.
func ProbeNamespaces() error { return errors.New("namespaces exist on Linux only") }

func userNSFlag() []string { return nil }
