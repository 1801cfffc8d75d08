package patch

import "strings"

// Tolerance is how loosely a hunk's lines matched the file's.
type Tolerance int

// The tolerances, in the order they are tried: each is tried over the
// whole search range only when every stricter one found nothing.
const (
	Exact         Tolerance = iota // byte for byte (line endings aside)
	TrailingSpace                  // ignoring trailing whitespace
	Indent                         // ignoring leading and trailing whitespace
	Punctuation                    // also reading Unicode dashes, quotes and spaces as ASCII
)

// String names the tolerance as results report it.
func (t Tolerance) String() string {
	switch t {
	case Exact:
		return "exact"
	case TrailingSpace:
		return "ignoring trailing whitespace"
	case Indent:
		return "ignoring indentation and trailing whitespace"
	case Punctuation:
		return "ignoring whitespace and reading Unicode punctuation as ASCII"
	}
	return "unknown"
}

// normalizers are the line comparisons of each tolerance, in order.
var normalizers = [...]func(string) string{
	Exact:         func(s string) string { return s },
	TrailingSpace: func(s string) string { return strings.TrimRight(s, " \t\r\n\v\f") },
	Indent:        strings.TrimSpace,
	Punctuation:   asciiPunct,
}

// asciiPunct trims s and maps Unicode dashes, quotes and spaces to ASCII.
func asciiPunct(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
			return '-'
		case '\u2018', '\u2019', '\u201A', '\u201B':
			return '\''
		case '\u201C', '\u201D', '\u201E', '\u201F':
			return '"'
		case '\u00A0', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', '\u2007', '\u2008', '\u2009', '\u200A', '\u202F', '\u205F', '\u3000':
			return ' '
		}
		return r
	}, strings.TrimSpace(s))
}

// Seek returns the first index at or after start where pattern occurs in
// lines, with the loosest tolerance it needed; ok is false when no
// tolerance finds it. With eof the pattern must end at the last line. An
// empty pattern matches at start.
func Seek(lines, pattern []string, start int, eof bool) (at int, tol Tolerance, ok bool) {
	if len(pattern) == 0 {
		return start, Exact, true
	}
	last := len(lines) - len(pattern)
	if last < 0 {
		return 0, Exact, false
	}
	if eof {
		start = last
	}
	for t, norm := range normalizers {
		for i := max(start, 0); i <= last; i++ {
			if matchAt(lines[i:i+len(pattern)], pattern, norm) {
				return i, Tolerance(t), true
			}
		}
	}
	return 0, Exact, false
}

// matchAt reports whether lines equal pattern under norm.
func matchAt(lines, pattern []string, norm func(string) string) bool {
	for j, p := range pattern {
		if norm(lines[j]) != norm(p) {
			return false
		}
	}
	return true
}

// MatchesAt reports whether pattern occurs in lines at index at under
// tolerance tol.
func MatchesAt(lines, pattern []string, at int, tol Tolerance) bool {
	if at < 0 || at+len(pattern) > len(lines) || tol < Exact || int(tol) >= len(normalizers) {
		return false
	}
	return matchAt(lines[at:at+len(pattern)], pattern, normalizers[tol])
}

// Closest returns the 1-based first line of the n-line window of lines
// most like want's first lines (most lines equal after trimming
// whitespace, then most shared characters at their ends), and the window;
// none when lines is empty.
func Closest(lines, want []string, n int) (first int, window []string) {
	if len(lines) == 0 || n <= 0 {
		return 0, nil
	}
	if len(want) > n {
		want = want[:n]
	}
	best, bestScore := 0, -1
	for i := range lines {
		score := 0
		for j, w := range want {
			if i+j >= len(lines) {
				break
			}
			score += likeness(lines[i+j], w)
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	end := min(best+n, len(lines))
	return best + 1, lines[best:end]
}

// likeness scores how alike two lines are: a trimmed-equal line scores
// above any partial one; else the length of their common prefix and suffix
// after trimming.
func likeness(a, b string) int {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if a == b {
		if a == "" {
			return 1
		}
		return 1000 + len(a)
	}
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return p + s
}
