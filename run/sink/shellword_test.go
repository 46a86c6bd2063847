package sink

import (
	"os/exec"
	"testing"
)

// TestShellWord: a word quoted by ShellWord reads back as itself in sh.
func TestShellWord(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	for _, s := range []string{"plain", "shell:go test *", "it's", "a'b'c", "$HOME", "`id`", "x;y", "", "sp ace", "tab\there", "write:{a,b}/**"} {
		out, err := exec.Command("sh", "-c", "printf %s "+ShellWord(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("ShellWord(%q) = %s: sh read %q (%v)", s, ShellWord(s), out, err)
		}
	}
}
