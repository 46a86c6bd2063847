package run

import (
	"crypto/sha256"
	"encoding/hex"
)

// promptHash is the hash a session records of a system prompt. (It was in
// prompt.go, which moved to run/input; the session log, its one user, is
// to take it.)
func promptHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}
