package run

import "testing"

func mapEnv(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestGitHubOutputSwitch(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		args []string
		env  map[string]string
		on   bool
	}{
		"actions":       {[]string{"rubichan", "exec", "hi"}, map[string]string{"GITHUB_ACTIONS": "true"}, true},
		"not actions":   {[]string{"rubichan", "exec", "hi"}, map[string]string{}, false},
		"flag off":      {[]string{"rubichan", "exec", "--github=false", "hi"}, map[string]string{"GITHUB_ACTIONS": "true"}, false},
		"env off":       {[]string{"rubichan", "exec", "hi"}, map[string]string{"GITHUB_ACTIONS": "true", "RUBICHAN_GITHUB": "false"}, false},
		"flag over env": {[]string{"rubichan", "exec", "--github", "hi"}, map[string]string{"GITHUB_ACTIONS": "true", "RUBICHAN_GITHUB": "0"}, true},
		"after --":      {[]string{"rubichan", "exec", "--", "--github=false"}, map[string]string{"GITHUB_ACTIONS": "true"}, true},
		"other command": {[]string{"rubichan", "config", "show"}, map[string]string{"GITHUB_ACTIONS": "true"}, false},
	} {
		if got := openEarly(scanArgs(c.args, mapEnv(c.env)), nil, nil, mapEnv(c.env), nil).github != nil; got != c.on {
			t.Errorf("%s: reporter %v, want %v", name, got, c.on)
		}
	}
}
