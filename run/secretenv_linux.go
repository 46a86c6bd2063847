package run

import (
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/rubichan/rubichan/toolkit"
)

// secretsFDVar names the descriptor a re-executed rubichan reads its
// secret environment variables from.
const secretsFDVar = "RUBICHAN_INTERNAL_SECRETS_FD"

// maxSecretsPayload is the most a secrets pipe carries: less than the
// smallest pipe buffer Linux gives an unprivileged user that is over its
// pipe quota (one page is the floor; 16 pages the usual size), so that
// the write never waits for the reader, which exists only after the exec.
const maxSecretsPayload = 4096

// hideSecrets takes the secret-looking variables (API keys, tokens: see
// [toolkit.LooksSecret]) out of the process's initial environment block,
// which /proc/PID/environ shows to root whatever the process does later.
//
// The values' bytes in the block are overwritten with NULs (the block is
// this process's own stack memory; Go's environment keeps its own copies).
// Where that fails (no /proc/self/mem), it re-executes the program (same pid,
// same args) with an environment without them, passing them through an
// inherited pipe that the new image reads to the end, closes, and puts
// back into the Go environment; the only trace in /proc is the
// descriptor's number. On success of that path, the first image does
// not return.
//
// It returns nil when there is nothing to hide or it was hidden, and an
// error when it could not be (the run goes on unchanged). args are the
// program's arguments, args[0] included.
func hideSecrets(args []string) error {
	if fd, ok := os.LookupEnv(secretsFDVar); ok {
		os.Unsetenv(secretsFDVar)
		return restoreSecrets(fd)
	}
	var keep, secrets []string
	for _, kv := range os.Environ() {
		name, val, _ := strings.Cut(kv, "=")
		if val != "" && toolkit.LooksSecret(name) {
			secrets = append(secrets, kv)
		} else {
			keep = append(keep, kv)
		}
	}
	if len(secrets) == 0 || scrubInPlace(secrets) {
		return nil
	}
	payload := strings.Join(secrets, "\x00")
	if len(payload) > maxSecretsPayload {
		return errors.New("run: too many secrets to hide from /proc")
	}
	var p [2]int
	// The read end is inherited by the new image; the write end is not.
	if err := syscall.Pipe2(p[:], 0); err != nil {
		return err
	}
	syscall.CloseOnExec(p[1])
	n, err := syscall.Write(p[1], []byte(payload))
	syscall.Close(p[1])
	if err == nil && n != len(payload) {
		err = io.ErrShortWrite
	}
	if err == nil {
		keep = append(keep, secretsFDVar+"="+strconv.Itoa(p[0]))
		err = syscall.Exec("/proc/self/exe", args, keep)
	}
	syscall.Close(p[0])
	return err
}

// restoreSecrets reads the secrets pipe fd to its end, closes it, and
// sets what it carried in the Go environment.
func restoreSecrets(fd string) error {
	n, err := strconv.Atoi(fd)
	if err != nil || n < 3 {
		return errors.New("run: bad " + secretsFDVar)
	}
	syscall.CloseOnExec(n)
	f := os.NewFile(uintptr(n), "secrets")
	data, err := io.ReadAll(io.LimitReader(f, maxSecretsPayload+1))
	f.Close()
	if err != nil {
		return err
	}
	for _, kv := range strings.Split(string(data), "\x00") {
		if name, val, ok := strings.Cut(kv, "="); ok && name != "" {
			os.Setenv(name, val)
		}
	}
	return nil
}

// scrubInPlace overwrites with NULs the values of the entries kvs
// ("NAME=value") in the initial environment block, through /proc/self/mem
// (the block is this process's own stack memory; Go's environment holds
// copies of its strings). It reports whether /proc/self/environ no longer
// shows any of the values afterwards.
func scrubInPlace(kvs []string) bool {
	start, _, ok := envBlock()
	if !ok {
		return false
	}
	block, err := os.ReadFile("/proc/self/environ")
	if err != nil {
		return false
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer mem.Close()
	secret := make(map[string]bool, len(kvs))
	for _, kv := range kvs {
		secret[kv] = true
	}
	off := 0
	for _, entry := range strings.Split(string(block), "\x00") {
		if secret[entry] {
			name, val, _ := strings.Cut(entry, "=")
			at := int64(start) + int64(off+len(name)+1)
			if _, err := mem.WriteAt(make([]byte, len(val)), at); err != nil {
				return false
			}
		}
		off += len(entry) + 1
	}
	after, err := os.ReadFile("/proc/self/environ")
	if err != nil {
		return false
	}
	for _, kv := range kvs {
		_, val, _ := strings.Cut(kv, "=")
		if strings.Contains(string(after), val) {
			return false
		}
	}
	return true
}

// envBlock returns the bounds of the initial environment block, fields 50
// and 51 (env_start, env_end) of /proc/self/stat.
func envBlock() (start, end uintptr, ok bool) {
	data, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, 0, false
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(data[i+1:])) // from field 3 on
	if len(f) < 49 {
		return 0, 0, false
	}
	s, err1 := strconv.ParseUint(f[47], 10, 64)
	e, err2 := strconv.ParseUint(f[48], 10, 64)
	if err1 != nil || err2 != nil || s == 0 || e <= s {
		return 0, 0, false
	}
	return uintptr(s), uintptr(e), true
}
