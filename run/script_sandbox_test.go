package run

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// sandboxScriptCmds are the script commands of the sandbox scripts:
//
//	tcplisten          serve TCP on 127.0.0.1 for the rest of the script; sets LISTEN_ADDR
//	gocache            set GOCACHE to the test process's Go build cache, so that a
//	                   `go test` inside a script is a warm build
func (s *serverSet) sandboxScriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"tcplisten": func(ts *testscript.TestScript, neg bool, args []string) {
			ln, err := net.Listen("tcp4", "127.0.0.1:0")
			ts.Check(err)
			ts.Defer(func() { ln.Close() })
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					c.Close()
				}
			}()
			ts.Setenv("LISTEN_ADDR", ln.Addr().String())
		},
		"gocache": func(ts *testscript.TestScript, neg bool, args []string) {
			dir, err := goCacheDir()
			ts.Check(err)
			ts.Setenv("GOCACHE", dir)
		},
	}
}

// goCacheDir is `go env GOCACHE`, asked once.
var goCacheDir = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	return strings.TrimSpace(string(out)), err
})

// simulatedABI reads RUBICHAN_TEST_LANDLOCK_ABI, with which a script
// simulates a kernel with another Landlock ABI (0: none); nil when unset.
func simulatedABI() func() int {
	v, ok := os.LookupEnv("RUBICHAN_TEST_LANDLOCK_ABI")
	if !ok {
		return nil
	}
	n, _ := strconv.Atoi(v)
	return func() int { return n }
}

// simulatedNamespaces reads RUBICHAN_TEST_NO_NAMESPACES, with which a
// script simulates a system that refuses commands namespaces of their own
// (the value is the reason); nil when unset or empty.
func simulatedNamespaces() func() error {
	v := os.Getenv("RUBICHAN_TEST_NO_NAMESPACES")
	if v == "" {
		return nil
	}
	return func() error { return errors.New(v) }
}
