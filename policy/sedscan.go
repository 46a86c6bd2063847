package policy

import "strings"

// sedScan is what a sed script does beyond printing: whether it runs a
// program (the e command, the s///e flag), the files it writes (w, W,
// s///w) and reads (r, R). ok is false for a script the scanner cannot
// follow, which is then treated as running a program.
type sedScan struct {
	exec   bool
	writes []string
	reads  []string
	ok     bool
}

// scanSed reads a GNU sed script command by command. It follows the
// syntax GNU sed accepts: addresses (numbers, $, first~step, /re/ and
// \cREc with I and M flags, addr,+N, addr,~N, !), blocks, labels, the
// one-line a/i/c forms, y, and s with any delimiter and its flags. A file
// name runs to the end of the line, as in sed.
func scanSed(s string) sedScan {
	r := sedScan{ok: true}
	i := 0
	for i < len(s) && r.ok {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '{' || c == '}':
			i++
			continue
		case c == '#':
			i = lineEnd(s, i)
			continue
		}
		var ok bool
		if i, ok = sedAddress(s, i); !ok {
			return sedScan{}
		}
		if i < len(s) && s[i] == ',' {
			i++
			if i < len(s) && (s[i] == '+' || s[i] == '~') {
				i++
			}
			if i, ok = sedAddress(s, i); !ok {
				return sedScan{}
			}
		}
		i = skipBlank(s, i)
		for i < len(s) && s[i] == '!' {
			i = skipBlank(s, i+1)
		}
		if i >= len(s) {
			return sedScan{}
		}
		i = r.command(s, i)
	}
	return r
}

// command reads one command at s[i] and returns the index after it.
func (r *sedScan) command(s string, i int) int {
	c := s[i]
	i++
	switch c {
	case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		return i
	case 'l', 'L', 'q', 'Q':
		i = skipBlank(s, i)
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i
	case 'b', 't', 'T', ':', 'v':
		for i < len(s) && s[i] != ';' && s[i] != '\n' {
			i++
		}
		return i
	case 'a', 'i', 'c':
		for i < len(s) && s[i] != '\n' {
			if s[i] == '\\' {
				i++
			}
			i++
		}
		return i
	case 'r', 'R', 'w', 'W':
		end := lineEnd(s, i)
		name := strings.TrimLeft(s[i:end], " \t")
		if c == 'r' || c == 'R' {
			r.reads = append(r.reads, name)
		} else {
			r.writes = append(r.writes, name)
		}
		return end
	case 'e':
		r.exec = true
		return lineEnd(s, i)
	case 'y':
		return r.delimited(s, i, 2)
	case 's':
		i = r.delimited(s, i, 2)
		return r.sFlags(s, i)
	}
	r.ok = false
	return len(s)
}

// delimited skips n parts of a command that starts with its delimiter at
// s[i] (s/re/repl/, y/abc/xyz/), with backslash escapes.
func (r *sedScan) delimited(s string, i, n int) int {
	if i >= len(s) || s[i] == '\\' || s[i] == '\n' {
		r.ok = false
		return len(s)
	}
	d := s[i]
	i++
	for part := 0; part < n; part++ {
		for i < len(s) && s[i] != d {
			if s[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(s) {
			r.ok = false
			return len(s)
		}
		i++
	}
	return i
}

// sFlags reads the flags of an s command: g, p, i, I, m, M, a number, e
// (run the pattern space as a command) and w FILE.
func (r *sedScan) sFlags(s string, i int) int {
	for i < len(s) && r.ok {
		switch c := s[i]; {
		case strings.IndexByte("gpiImM0123456789", c) >= 0:
			i++
		case c == 'e':
			r.exec = true
			i++
		case c == 'w':
			end := lineEnd(s, i+1)
			r.writes = append(r.writes, strings.TrimLeft(s[i+1:end], " \t"))
			return end
		case c == ';' || c == '\n' || c == '}' || c == ' ' || c == '\t' || c == '#':
			return i
		default:
			r.ok = false
		}
	}
	return i
}

// sedAddress skips one address at s[i], if any.
func sedAddress(s string, i int) (int, bool) {
	if i >= len(s) {
		return i, true
	}
	switch c := s[i]; {
	case c >= '0' && c <= '9':
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '~') {
			i++
		}
	case c == '$':
		i++
	case c == '/' || c == '\\':
		d := byte('/')
		if c == '\\' {
			if i+1 >= len(s) || s[i+1] == '\n' {
				return i, false
			}
			d = s[i+1]
			i++
		}
		i++
		for i < len(s) && s[i] != d {
			if s[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(s) {
			return i, false
		}
		i++
		for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
			i++
		}
	}
	return i, true
}

func skipBlank(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

func lineEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(s)
}
