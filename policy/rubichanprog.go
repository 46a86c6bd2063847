package policy

// rubichanQueryOptions are the options of `rubichan query` (see the
// runner's docs/subqueries.md) and whether each takes a value. A
// sub-query only sends text to the run's model, which the run's cost
// caps bound; the files it sends (--split, the "file" of --batch) are
// judged by the read rules in the run that reads them, not here.
var rubichanQueryOptions = map[string]bool{
	"--model": true, "--max-tokens": true, "--system": true, "--batch": false, "--concurrency": true,
	"--split": true, "--chunk": true, "--overlap": true,
}

// rubichanFindings: only `rubichan query` with the options above has a
// fixed shape; any other command of rubichan (exec runs an agent with
// tools of its own) and any other option (--config names a file of
// settings, --base-url another endpoint) counts as running a program.
func rubichanFindings(argv []word) []optFinding {
	if len(argv) < 2 || !argv[1].exact || argv[1].value != "query" {
		return []optFinding{execAt(0, "rubichan", "runs rubichan itself, which can run any command")}
	}
	// The options follow the subcommand: parse argv[1:], whose indexes
	// are one less than argv's.
	p := getopt{val: "m", long: rubichanQueryOptions}.parse(argv[1:])
	out := globExecs(p, argv[1:])
	for _, o := range p.opts {
		if _, ok := rubichanQueryOptions[o.name]; ok || o.name == "-m" {
			continue
		}
		out = append(out, execAt(o.index, o.name, "an option of rubichan query the policy does not model"))
	}
	for i := range out {
		out[i].index++
	}
	return out
}
