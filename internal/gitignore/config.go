package gitignore

import "strings"

// ConfigValue returns the last value of section.key (both matched
// case-insensitively, no subsection) in the content of a git config file;
// ok is false when the key is absent or the file is malformed (where git
// would refuse the file). It reads git's syntax: comments ("#", ";"),
// quoted values, the escapes \n \t \b \\ \" and line continuations.
func ConfigValue(data []byte, section, key string) (value string, ok bool) {
	c := configReader{s: strings.TrimPrefix(string(data), "\xef\xbb\xbf")}
	inSection := false
	for {
		c.skipSpace(true)
		if c.eof() {
			return value, ok
		}
		switch ch := c.s[c.i]; {
		case ch == '#' || ch == ';':
			c.skipLine()
		case ch == '[':
			name, good := c.header()
			if !good {
				return "", false
			}
			inSection = strings.EqualFold(name, section)
		case isAlpha(ch):
			name := c.name()
			v, good := c.value()
			if !good {
				return "", false
			}
			if inSection && strings.EqualFold(name, key) {
				value, ok = v, true
			}
		default:
			return "", false
		}
	}
}

type configReader struct {
	s string
	i int
}

func (c *configReader) eof() bool { return c.i >= len(c.s) }

// skipSpace skips spaces and tabs, and newlines too when lines is set.
func (c *configReader) skipSpace(lines bool) {
	for !c.eof() {
		switch c.s[c.i] {
		case ' ', '\t', '\r':
		case '\n':
			if !lines {
				return
			}
		default:
			return
		}
		c.i++
	}
}

func (c *configReader) skipLine() {
	for !c.eof() && c.s[c.i] != '\n' {
		c.i++
	}
}

// header reads "[name]" or "[name "sub"]" or "[name.sub]"; name is "" for
// a section with a subsection (it never matches a plain section).
func (c *configReader) header() (string, bool) {
	c.i++
	start := c.i
	for !c.eof() && (isAlnum(c.s[c.i]) || c.s[c.i] == '-' || c.s[c.i] == '.') {
		c.i++
	}
	name := c.s[start:c.i]
	if c.eof() {
		return "", false
	}
	if c.s[c.i] == ']' {
		c.i++
		if strings.Contains(name, ".") {
			return "", true
		}
		return name, true
	}
	if c.s[c.i] != ' ' && c.s[c.i] != '\t' {
		return "", false
	}
	c.skipSpace(false)
	if c.eof() || c.s[c.i] != '"' {
		return "", false
	}
	for c.i++; !c.eof() && c.s[c.i] != '"'; c.i++ {
		if c.s[c.i] == '\n' {
			return "", false
		}
		if c.s[c.i] == '\\' {
			c.i++
		}
	}
	if c.eof() || c.i+1 >= len(c.s) || c.s[c.i+1] != ']' {
		return "", false
	}
	c.i += 2
	return "", true
}

// name reads a variable name: a letter, then letters, digits and "-".
func (c *configReader) name() string {
	start := c.i
	for !c.eof() && (isAlnum(c.s[c.i]) || c.s[c.i] == '-') {
		c.i++
	}
	return c.s[start:c.i]
}

// value reads what follows a variable name up to the end of its line: a
// missing "=" (a boolean true) reads as "", as `git config --get` prints it.
func (c *configReader) value() (string, bool) {
	c.skipSpace(false)
	if c.eof() || c.s[c.i] == '\n' {
		return "", true
	}
	if c.s[c.i] != '=' {
		return "", false
	}
	c.i++
	c.skipSpace(false)
	var b strings.Builder
	quoted := false
	pending := 0 // unquoted spaces not yet known to be inside the value
	for ; !c.eof(); c.i++ {
		ch := c.s[c.i]
		if ch == '\n' {
			if quoted {
				return "", false
			}
			break
		}
		if !quoted && (ch == ' ' || ch == '\t' || ch == '\r') {
			pending++
			continue
		}
		if !quoted && (ch == '#' || ch == ';') {
			c.skipLine()
			break
		}
		if pending > 0 {
			if b.Len() > 0 {
				b.WriteString(strings.Repeat(" ", pending))
			}
			pending = 0
		}
		switch ch {
		case '"':
			quoted = !quoted
		case '\\':
			c.i++
			if c.eof() {
				break
			}
			switch c.s[c.i] {
			case '\n':
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			case '\\', '"':
				b.WriteByte(c.s[c.i])
			default:
				return "", false
			}
		default:
			b.WriteByte(ch)
		}
	}
	if quoted {
		return "", false
	}
	return b.String(), true
}

func isAlpha(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }
func isAlnum(c byte) bool { return isAlpha(c) || (c >= '0' && c <= '9') }
