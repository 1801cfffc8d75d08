package textmatch

import (
	"strings"

	"github.com/toolrpc/toolrpc/internal/patch"
)

// How says how a Find matched.
type How int

// The ways Find matches, strictest first.
const (
	Exact How = iota // the bytes, as given
	CRLF             // the text's "\n" read as the file's "\r\n"
	Lines            // whole lines, with a patch tolerance (Match.Tol)
)

// Match is one occurrence: the byte span [Start, End) of the file's text
// and the 1-based line it starts on.
type Match struct {
	Start, End int
	Line       int
}

// Result is what Find found: every occurrence, all found the same way.
type Result struct {
	Matches []Match
	How     How
	// Tol is the tolerance of a Lines match.
	Tol patch.Tolerance
}

// Find returns every occurrence of old in text at the strictest way that
// finds any (none: Matches is empty). An empty old finds nothing.
func Find(text, old string) Result {
	if old == "" {
		return Result{}
	}
	if ms := exact(text, old); len(ms) > 0 {
		return Result{Matches: ms, How: Exact}
	}
	if strings.Contains(text, "\r\n") && strings.Contains(old, "\n") && !strings.Contains(old, "\r") {
		if ms := exact(text, strings.ReplaceAll(old, "\n", "\r\n")); len(ms) > 0 {
			return Result{Matches: ms, How: CRLF}
		}
	}
	return byLines(text, old)
}

// exact returns the non-overlapping occurrences of old in text.
func exact(text, old string) []Match {
	var ms []Match
	line, counted := 1, 0
	for from := 0; ; {
		i := strings.Index(text[from:], old)
		if i < 0 {
			return ms
		}
		start := from + i
		line += strings.Count(text[counted:start], "\n")
		counted = start
		ms = append(ms, Match{Start: start, End: start + len(old), Line: line})
		from = start + len(old)
	}
}

// byLines matches old's lines against text's whole lines with patch.Seek's
// tolerances; a match spans whole lines, their endings excluded from the
// last.
func byLines(text, old string) Result {
	lines, offs := splitLines(text)
	pattern, _ := splitLines(strings.TrimSuffix(strings.TrimSuffix(old, "\n"), "\r"))
	if len(pattern) == 0 {
		return Result{}
	}
	at, tol, ok := patch.Seek(lines, pattern, 0, false)
	if !ok {
		return Result{}
	}
	res := Result{How: Lines, Tol: tol}
	for i := at; i+len(pattern) <= len(lines); i++ {
		if i > at && !patch.MatchesAt(lines, pattern, i, tol) {
			continue
		}
		end := offs[i+len(pattern)-1] + len(lines[i+len(pattern)-1])
		res.Matches = append(res.Matches, Match{Start: offs[i], End: end, Line: i + 1})
		i += len(pattern) - 1
	}
	return res
}

// splitLines splits text into lines without their endings ("\n" or
// "\r\n") and the byte offset of each.
func splitLines(text string) (lines []string, offs []int) {
	off := 0
	for off < len(text) {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			lines, offs = append(lines, text[off:]), append(offs, off)
			break
		}
		lines, offs = append(lines, strings.TrimSuffix(text[off:off+i], "\r")), append(offs, off)
		off += i + 1
	}
	return lines, offs
}

// Closest returns the 1-based first line of the n-line window of text
// most like old's first lines, and the window's lines (patch.Closest).
func Closest(text, old string, n int) (first int, window []string) {
	lines, _ := splitLines(text)
	want, _ := splitLines(old)
	return patch.Closest(lines, want, n)
}
