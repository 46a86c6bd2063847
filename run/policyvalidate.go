package run

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/rubichan/rubichan/policy"
	"github.com/rubichan/rubichan/run/exit"
	"github.com/rubichan/rubichan/run/harness"
)

// validatePolicy is `rubichan policy check` with no call: it loads the
// policy exec would use (--policy, else a trusted workspace file, else the
// built-in default; --allow and --deny too), which runs its [[test]]
// self-tests, and says so. A failing self-test is exit 1 with its name,
// file and line; an invalid file is the usual exit 2.
func validatePolicy(c *cli.Context) error {
	pol, err := harness.LoadPolicy(harness.PolicySource{
		Dir:            c.String("cwd"),
		File:           c.String("policy"),
		Allow:          c.StringSlice("allow"),
		Deny:           c.StringSlice("deny"),
		TrustWorkspace: c.Bool("trust-workspace"),
		Headless:       true,
	}, c.App.ErrWriter)
	if err == nil && pol.File() == "" {
		// The built-in policy's tests are not run at load (they are
		// the same at every start): here they are.
		err = pol.SelfTest()
	}
	var le *policy.LoadError
	if errors.Is(err, policy.ErrSelfTest) && errors.As(err, &le) {
		// Not a usage error: the file is valid, its tests say the
		// rules do not do what the author meant.
		return exit.CodeError{Code: exit.Failure, Err: le}
	}
	if err != nil {
		return err
	}
	n := pol.SelfTests()
	_, err = fmt.Fprintf(c.App.Writer, "%s: valid; %d self-test%s passed\n", pol.Name(), n, plural(n))
	return err
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
