package run

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rubichan/rubichan/run/config"
	"github.com/rubichan/rubichan/run/exit"
)

func TestNormalizeArgs(t *testing.T) {
	t.Parallel()
	app := newApp(nil, nil, nil, fakeEnv(nil), earlyOutput{})
	tests := map[string]struct {
		in      []string
		want    []string
		wantErr bool
	}{
		"flags after prompt": {
			in:   []string{"rubichan", "exec", "fix it", "--model", "x"},
			want: []string{"rubichan", "exec", "--model", "x", "--", "fix it"},
		},
		"flags around prompt": {
			in:   []string{"rubichan", "exec", "-C", "dir", "fix", "--quiet", "it", "--max-turns=3"},
			want: []string{"rubichan", "exec", "-C", "dir", "--quiet", "--max-turns=3", "--", "fix", "it"},
		},
		"double dash ends flags": {
			in:   []string{"rubichan", "exec", "--quiet", "--", "--model", "-x"},
			want: []string{"rubichan", "exec", "--quiet", "--", "--model", "-x"},
		},
		"lone dash is positional": {
			in:   []string{"rubichan", "exec", "-", "--no-stdin"},
			want: []string{"rubichan", "exec", "--no-stdin", "--", "-"},
		},
		"bool flag with value": {
			in:   []string{"rubichan", "exec", "go", "--quiet=false"},
			want: []string{"rubichan", "exec", "--quiet=false", "--", "go"},
		},
		"repeated slice flag": {
			in:   []string{"rubichan", "exec", "x", "--allow", "shell:go test ./...", "--allow=write:**"},
			want: []string{"rubichan", "exec", "--allow", "shell:go test ./...", "--allow=write:**", "--", "x"},
		},
		"help flag": {
			in:   []string{"rubichan", "exec", "--help"},
			want: []string{"rubichan", "exec", "--help"},
		},
		"no command untouched": {
			in:   []string{"rubichan", "fix it", "--bogus"},
			want: []string{"rubichan", "fix it", "--bogus"},
		},
		"subcommand flags": {
			in:   []string{"rubichan", "policy", "check", "--tool", "shell", "--", "git status"},
			want: []string{"rubichan", "policy", "check", "--tool", "shell", "--", "git status"},
		},
		"subcommand flags after words": {
			in:   []string{"rubichan", "policy", "check", "src/a.go", "--tool", "read"},
			want: []string{"rubichan", "policy", "check", "--tool", "read", "--", "src/a.go"},
		},
		"unknown flag":         {in: []string{"rubichan", "exec", "fix", "--bogus"}, wantErr: true},
		"unknown short flag":   {in: []string{"rubichan", "exec", "-x", "fix"}, wantErr: true},
		"triple dash":          {in: []string{"rubichan", "exec", "---model", "x"}, wantErr: true},
		"missing value at end": {in: []string{"rubichan", "exec", "fix", "--model"}, wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := normalizeArgs(app, tc.in)
			if tc.wantErr {
				var ue exit.UsageError
				if !errors.As(err, &ue) {
					t.Fatalf("normalizeArgs(%q) = %q, %v; want a usage error", tc.in, got, err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("normalizeArgs(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestEnvName(t *testing.T) {
	t.Parallel()
	for flag, want := range map[string]string{
		"max-turns":            "RUBICHAN_MAX_TURNS",
		"cwd":                  "RUBICHAN_CWD",
		"append-system-prompt": "RUBICHAN_APPEND_SYSTEM_PROMPT",
	} {
		if got := envName(flag); got != want {
			t.Errorf("envName(%q) = %q, want %q", flag, got, want)
		}
	}
}

func TestEveryExecFlagReadsItsEnvVar(t *testing.T) {
	t.Parallel()
	// LoadConfig reads the variables of the configuration flags itself, so
	// they rank between the workspace file and the flags.
	fromConfig := map[string]bool{"config": true}
	for _, n := range config.FlagNames() {
		fromConfig[n] = true
	}
	for _, f := range execFlags() {
		ev, ok := f.(interface{ GetEnvVars() []string })
		if !ok {
			t.Fatalf("flag %v has no env vars", f.Names())
		}
		want := envName(f.Names()[0])
		if fromConfig[f.Names()[0]] {
			if len(ev.GetEnvVars()) != 0 {
				t.Errorf("config flag --%s: urfave reads %v; config.Load reads %s itself", f.Names()[0], ev.GetEnvVars(), want)
			}
			continue
		}
		if !slices.Equal(ev.GetEnvVars(), []string{want}) {
			t.Errorf("flag --%s reads %v, want [%s]", f.Names()[0], ev.GetEnvVars(), want)
		}
	}
}

// normalizeArgsSeeds are FuzzNormalizeArgs's seeds: words after exec,
// joined by NUL.
func normalizeArgsSeeds() []string {
	return []string{"fix it\x00--model\x00x", "--\x00-x", "-C\x00dir\x00a", "--allow=shell:ls\x00-", "--max-turns"}
}

func FuzzNormalizeArgs(f *testing.F) {
	for _, seed := range normalizeArgsSeeds() {
		f.Add(seed)
	}
	app := newApp(nil, nil, nil, fakeEnv(nil), earlyOutput{})
	f.Fuzz(func(t *testing.T, joined string) {
		words := strings.Split(joined, "\x00")
		in := append([]string{"rubichan", "exec"}, words...)
		out, err := normalizeArgs(app, in)
		if err != nil {
			var ue exit.UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("error %v is not a usage error", err)
			}
			return
		}
		// Every word survives, in the same relative order among flags and
		// among positional words; only a "--" separator may be added.
		var got []string
		for _, w := range out[2:] {
			if w != "--" {
				got = append(got, w)
			}
		}
		var want []string
		for _, w := range words {
			if w != "--" {
				want = append(want, w)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("normalizeArgs(%q) = %q: words lost or added", in, out)
		}
	})
}
