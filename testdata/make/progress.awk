# Progress of `go test -v` over a package whose tests take minutes (make
# test's run package): each top-level test's result, each failing
# sub-test, and a line per 25 sub-tests ended, as they come. When go test
# does not end with ok, it then prints go test's output but its === lines
# and passing sub-tests, and exits 1.
# A sub-test's result is indented and names its parent (TestScript/x); an
# indented result without a slash is a test's log quoting another go test
# run's output (a script that runs go test), not a result of this package.
/^=== / { next }
/^ +--- (PASS|SKIP): [^ ]+\// { if (++subs % 25 == 0) print "  " subs " sub-tests ended"; fflush(); next }
{ kept[++n] = $0 }
/^--- FAIL: / || /^ +--- FAIL: [^ ]+\// || /^--- (PASS|SKIP): / || /^(ok|FAIL)[ \t]/ { print; fflush() }
/^ok[ \t]/ { ok = 1 }
END {
	if (ok) exit 0
	print "go test -v's output, without its === lines and passing sub-tests:"
	for (i = 1; i <= n; i++) print kept[i]
	exit 1
}
