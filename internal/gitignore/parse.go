package gitignore

import (
	"bytes"
	"strconv"
	"strings"
)

// Rule is one pattern line of an ignore file.
type Rule struct {
	// Source names the ignore file the rule came from (as given to Compile).
	Source string
	// Line is the rule's 1-based line number in Source.
	Line int
	// Text is the line as git uses it: line ending and unescaped trailing
	// spaces removed.
	Text string
	// Negate is set for a "!" rule: a match re-includes the path.
	Negate bool

	dirOnly bool   // the pattern ended in "/": it matches directories only
	noDir   bool   // the pattern has no "/" (but a trailing one): it matches base names
	pattern string // the pattern without "!", trailing "/" and, for path patterns, a leading "/"
}

// String returns the rule as `file:line pattern`, the way a notice names it.
func (r *Rule) String() string {
	return r.Source + ":" + strconv.Itoa(r.Line) + " " + r.Text
}

// Parse returns the rules of an ignore file's content, in file order, the
// way git's add_patterns_from_buffer reads it: a UTF-8 byte order mark is
// skipped, "\r\n" ends a line like "\n", blank lines and lines starting with
// "#" are comments, unescaped trailing spaces are trimmed, and a line holding
// a NUL byte ends there.
func Parse(source string, data []byte) []Rule {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var rules []Rule
	line := 0
	for len(data) > 0 {
		line++
		var raw []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			raw, data = data[:i], data[i+1:]
		} else {
			raw, data = data, nil
		}
		if len(raw) == 0 || raw[0] == '#' {
			continue
		}
		raw = bytes.TrimSuffix(raw, []byte("\r"))
		if i := bytes.IndexByte(raw, 0); i >= 0 {
			raw = raw[:i]
		}
		text := trimTrailingSpaces(string(raw))
		r, ok := parseRule(text)
		if !ok {
			continue
		}
		r.Source, r.Line = source, line
		rules = append(rules, r)
	}
	return rules
}

// trimTrailingSpaces removes trailing spaces that no backslash escapes
// (git's trim_trailing_spaces: a backslash escapes the byte after it).
func trimTrailingSpaces(s string) string {
	lastSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
		case '\\':
			i++
			if i == len(s) {
				return s
			}
			lastSpace = -1
		default:
			lastSpace = -1
		}
	}
	if lastSpace >= 0 {
		return s[:lastSpace]
	}
	return s
}

// parseRule splits one trimmed line into a rule (git's parse_path_pattern);
// ok is false for a line that can match nothing.
func parseRule(text string) (Rule, bool) {
	r := Rule{Text: text}
	p := text
	if strings.HasPrefix(p, "!") {
		r.Negate = true
		p = p[1:]
	}
	if strings.HasSuffix(p, "/") {
		r.dirOnly = true
		p = p[:len(p)-1]
	}
	if p == "" {
		// git keeps it, but an empty pattern never matches a name.
		return r, false
	}
	r.noDir = !strings.Contains(p, "/")
	if !r.noDir {
		// match_pathname: a leading "/" only anchors, which every path
		// pattern is anyway.
		p = strings.TrimPrefix(p, "/")
	}
	r.pattern = p
	return r, true
}

// hasWildcard reports whether s holds one of git's glob specials "*?[\".
func hasWildcard(s string) bool {
	return strings.ContainsAny(s, `*?[\`)
}
