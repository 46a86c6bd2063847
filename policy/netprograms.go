package policy

import (
	"path"
	"strings"
)

// The network programs a CI policy allows: rsync, ssh, scp, sftp, curl and
// wget, whose options name programs to run (a remote shell, a proxy
// command), files to write (downloads, logs, cookie jars) and files to
// read and send (uploads, @FILE data, file: URLs).

// rsyncFindings: -e, --rsh, --rsync-path, -M and --remote-option run
// programs; the local destination (the last of two or more operands) and
// --backup-dir, --temp-dir, --partial-dir are written beneath; --log-file,
// --write-batch and --only-write-batch write a file.
func rsyncFindings(argv []word) []optFinding {
	p := getopt{val: "eBfTM", long: map[string]bool{
		"--rsh": true, "--rsync-path": true, "--remote-option": true, "--log-file": true,
		"--write-batch": true, "--only-write-batch": true, "--backup-dir": true, "--temp-dir": true,
		"--partial-dir": true, "--filter": true, "--exclude": true, "--include": true, "--files-from": true,
		"--exclude-from": true, "--include-from": true, "--config": true, "--compare-dest": true,
		"--copy-dest": true, "--link-dest": true, "--chmod": true, "--chown": true, "--out-format": true,
	}}.parse(argv)
	out := globExecs(p, argv)
	for _, o := range p.opts {
		switch o.name {
		case "-e", "--rsh", "--rsync-path", "-M", "--remote-option", "--config":
			out = append(out, execAt(o.index, o.name, "runs a program (the remote shell, or the rsync on the other side)"))
		case "--log-file", "--write-batch", "--only-write-batch":
			if o.has {
				out = append(out, writeAt(o.index, o.name, o.value))
				if o.name != "--log-file" {
					out = append(out, writeAt(o.index, o.name, word{value: o.value.value + ".sh", exact: o.value.exact, src: o.value.src}))
				}
			}
		case "-T", "--temp-dir", "--backup-dir", "--partial-dir":
			if o.has {
				out = append(out, treeAt(o.index, o.name, o.value, false))
			}
		}
	}
	if n := len(p.operands); n >= 2 {
		i := p.operands[n-1]
		if !isRemote(argv[i]) {
			out = append(out, treeAt(i, "rsync destination", argv[i], false))
		}
	}
	return out
}

// isRemote reports whether an operand of rsync or scp names a remote
// host (host:path, user@host:path, rsync://); an unreadable one is not
// taken for remote, so that it stays a local write.
func isRemote(w word) bool {
	if !w.exact {
		return false
	}
	v := w.value
	if strings.Contains(v, "://") {
		return true
	}
	colon := strings.IndexByte(v, ':')
	return colon > 0 && !strings.Contains(v[:colon], "/")
}

// sshFindings: -o and -F (ssh, scp, sftp) can name programs
// (ProxyCommand, LocalCommand, KnownHostsCommand); scp and sftp -S and
// sftp -D run a program, sftp -b runs batch commands (! runs a local
// shell); ssh -E writes a log; scp's local destination is written and its
// local sources are read (and sent).
func sshFindings(argv []word) []optFinding {
	name := path.Base(argv[0].value)
	p := getopt{val: "BbcDEeFIiJLlmOopPQRSWw"}.parse(argv)
	out := globExecs(p, argv)
	for _, o := range p.opts {
		switch {
		case o.name == "-o" || o.name == "-F":
			out = append(out, execAt(o.index, o.name, "sets ssh options, which can name programs (ProxyCommand, LocalCommand, KnownHostsCommand)"))
		case o.name == "-S" && name != "ssh", o.name == "-D" && name == "sftp", o.name == "-b" && name == "sftp":
			out = append(out, execAt(o.index, o.name, "runs a program, or batch commands that can run one"))
		case o.name == "-E" && o.has:
			out = append(out, writeAt(o.index, o.name, o.value))
		}
	}
	if name != "scp" || len(p.operands) < 2 {
		return out
	}
	ops := p.operands
	dst := ops[len(ops)-1]
	if !isRemote(argv[dst]) {
		out = append(out, treeAt(dst, "scp destination", argv[dst], false))
	}
	for _, i := range ops[:len(ops)-1] {
		if !isRemote(argv[i]) {
			out = append(out, treeAt(i, "scp source", argv[i], true))
		}
	}
	return out
}

// curlFindings: -o, --output, -D, -c, --trace, --trace-ascii, --stderr,
// --libcurl, --etag-save, --hsts and --alt-svc write the file they name;
// -O, --remote-name(-all) and -J write a file named by the URL or server
// (beneath --output-dir); -K and --config read options that can write
// files; -w with @FILE or %output{} writes; -T, --upload-file and
// @FILE data (-d, --data-binary, --data-urlencode, --json, -F) read a
// file and send it; a file: URL reads it.
func curlFindings(argv []word) []optFinding {
	p := getopt{val: "AbcCdDeEFHKmoPQrTtuUwxXYyz", long: map[string]bool{
		"--output": true, "--output-dir": true, "--config": true, "--dump-header": true, "--cookie-jar": true,
		"--trace": true, "--trace-ascii": true, "--stderr": true, "--libcurl": true, "--etag-save": true,
		"--hsts": true, "--alt-svc": true, "--upload-file": true, "--data": true, "--data-binary": true,
		"--data-raw": true, "--data-ascii": true, "--data-urlencode": true, "--json": true, "--form": true,
		"--form-string": true, "--write-out": true, "--url": true, "--header": true, "--user": true,
		"--user-agent": true, "--request": true, "--proxy": true, "--cookie": true, "--referer": true,
		"--max-time": true, "--connect-timeout": true, "--retry": true, "--range": true,
		"--remote-name": false, "--remote-name-all": false, "--remote-header-name": false,
	}}.parse(argv)
	out := globExecs(p, argv)
	dir, named := dotWord, false
	for _, o := range p.opts {
		switch o.name {
		case "-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii",
			"--stderr", "--libcurl", "--etag-save", "--hsts", "--alt-svc":
			if o.has && !(o.value.exact && o.value.value == "-") {
				out = append(out, writeAt(o.index, o.name, o.value))
			}
		case "-O", "--remote-name", "--remote-name-all", "-J", "--remote-header-name":
			named = true
		case "--output-dir":
			if o.has {
				dir, named = o.value, true
			}
		case "-K", "--config":
			out = append(out, execAt(o.index, o.name, "reads options from a file, which can write files"))
		case "-w", "--write-out":
			if !o.value.exact || strings.HasPrefix(o.value.value, "@") || strings.Contains(o.value.value, "%output") {
				out = append(out, execAt(o.index, o.name, "writes to a file (%output{}) or reads its format from one"))
			}
		case "-T", "--upload-file":
			if o.has && !(o.value.exact && (o.value.value == "-" || o.value.value == ".")) {
				out = append(out, readAt(o.index, o.name, o.value))
			}
		case "-d", "--data", "--data-binary", "--data-urlencode", "--json", "-F", "--form", "--data-ascii":
			if f, ok := atFile(o.value); ok {
				out = append(out, readAt(o.index, o.name, f))
			}
		case "--url":
			out = append(out, fileURL(o.index, o.value)...)
		case "-b", "--cookie", "-H", "--header":
			// a cookie file (no "=") or @FILE headers are read and sent
			v := o.value
			if !v.exact || o.name[1] == 'b' || o.name == "--cookie" {
				if !v.exact || !strings.Contains(v.value, "=") {
					out = append(out, readAt(o.index, o.name, v))
				}
			} else if f, ok := strings.CutPrefix(v.value, "@"); ok && f != "-" {
				out = append(out, readAt(o.index, o.name, word{value: f, exact: true, src: v.src}))
			}
		}
	}
	if named {
		out = append(out, treeAt(len(argv), "curl -O", dir, false))
	}
	for _, i := range p.operands {
		out = append(out, fileURL(i, argv[i])...)
	}
	return out
}

// atFile returns the file an @FILE (or name@FILE, name=@FILE, name=<FILE)
// data value names; an unreadable value counts as one, with the word.
func atFile(w word) (word, bool) {
	if !w.exact {
		return w, strings.ContainsAny(w.src, "@<$`")
	}
	v := w.value
	i := strings.IndexAny(v, "@<")
	if i < 0 || v[i] == '<' && !strings.Contains(v[:i], "=") {
		return word{}, false
	}
	f, _, _ := strings.Cut(v[i+1:], ";")
	if f == "-" || f == "" {
		return word{}, false
	}
	return word{value: f, exact: true, src: f}, true
}

// fileURL returns a read finding for a file: URL, which curl reads from
// the local disk.
func fileURL(i int, w word) []optFinding {
	if !w.exact {
		return nil
	}
	v := w.value
	if len(v) < 5 || !strings.EqualFold(v[:5], "file:") {
		return nil
	}
	rest := v[5:]
	if h, ok := strings.CutPrefix(rest, "//"); ok {
		slash := strings.IndexByte(h, '/')
		if slash < 0 {
			return []optFinding{execAt(i, "file URL", "reads a local file the analysis cannot name")}
		}
		rest = h[slash:]
	}
	return []optFinding{readAt(i, "file URL", word{value: rest, exact: true, src: w.src})}
}

// wgetFindings: -e, --execute, --config and --use-askpass run commands
// or read settings that can; -O, -o, -a, --output-document,
// --output-file, --append-output, --save-cookies and --warc-file write;
// --post-file and --body-file read a file and send it; a download
// without -O writes beneath -P (else the working directory).
func wgetFindings(argv []word) []optFinding {
	p := getopt{val: "OoaPeiBtTwQUlARDIX", long: map[string]bool{
		"--output-document": true, "--output-file": true, "--append-output": true, "--directory-prefix": true,
		"--execute": true, "--config": true, "--input-file": true, "--post-file": true, "--body-file": true,
		"--save-cookies": true, "--load-cookies": true, "--use-askpass": true, "--warc-file": true,
		"--spider": false,
	}}.parse(argv)
	out := globExecs(p, argv)
	dir, document := dotWord, false
	for _, o := range p.opts {
		switch o.name {
		case "-e", "--execute", "--config", "--use-askpass":
			out = append(out, execAt(o.index, o.name, "runs a command or reads settings that can write files or run programs"))
		case "-O", "--output-document":
			document = true
			if o.has && !(o.value.exact && o.value.value == "-") {
				out = append(out, writeAt(o.index, o.name, o.value))
			}
		case "-o", "--output-file", "-a", "--append-output", "--save-cookies":
			if o.has {
				out = append(out, writeAt(o.index, o.name, o.value))
			}
		case "--warc-file":
			if o.has {
				out = append(out, writeAt(o.index, o.name, word{value: o.value.value + ".warc.gz", exact: o.value.exact, src: o.value.src}))
			}
		case "-P", "--directory-prefix":
			if o.has {
				dir = o.value
			}
		case "--post-file", "--body-file":
			if o.has {
				out = append(out, readAt(o.index, o.name, o.value))
			}
		}
	}
	if !document && !p.has("--spider") {
		out = append(out, treeAt(len(argv), "wget download", dir, false))
	}
	return out
}
