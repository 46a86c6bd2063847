//go:build !linux

package run

import "github.com/rogpeppe/go-internal/testscript"

// ptyScriptCmds is empty where the tests cannot open a pseudo-terminal;
// the scripts that need one are marked [linux].
func ptyScriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return nil
}
