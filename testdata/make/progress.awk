# Progress of `go test -v` over a package whose tests take minutes (make
# test's run package): each top-level test's result, each failing
# sub-test, and a line per 25 sub-tests ended, as they come. When go test
# does not end with ok, it then prints go test's output but its === lines
# and passing sub-tests, and exits 1.
/^=== / { next }
/^ +--- (PASS|SKIP): / { if (++subs % 25 == 0) print "  " subs " sub-tests ended"; fflush(); next }
{ kept[++n] = $0 }
/^ *--- FAIL: / || /^--- (PASS|SKIP): / || /^(ok|FAIL)[ \t]/ { print; fflush() }
/^ok[ \t]/ { ok = 1 }
END {
	if (ok) exit 0
	print "go test -v's output, without its === lines and passing sub-tests:"
	for (i = 1; i <= n; i++) print kept[i]
	exit 1
}
