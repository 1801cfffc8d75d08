package search

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Matcher finds matching lines. It is safe for concurrent use.
type Matcher struct {
	re        *regexp.Regexp
	tree      *syntax.Regexp // re's parsed, simplified tree
	multiline bool
	size      int  // the pattern's length in bytes, as Compile got it
	perLine   bool // \A or \z present: the buffer run would not see line starts as text starts

	lit    []byte        // a string every match contains, or nil
	fold   bool          // lit is compared folding ASCII letter case
	rare   int           // index in lit of the byte to scan for
	exact  bool          // a line holding lit always matches: the regexp need not run
	rareLo byte          // lit[rare] in lower case (fold)
	rareUp byte          // lit[rare] in upper case (fold)
	never  bool          // every match holds a newline, so no single line matches
	whole  *wholeLiteral // the pattern is one literal: lines are confirmed without regexp, or nil
	pair   *bytePair     // finds lit (two bytes or more) by two rare bytes at once, or nil
	ascii  bool          // lit is all ASCII: see absentFrom

	run    *[256]bool // bytes of a class every match repeats runLen times in a row, or nil
	runLen int

	dfa *lineDFA // answers re.Match on ASCII lines faster, or nil
}

// Compile compiles an RE2 pattern. caseInsensitive adds (?i); multiline lets
// matches span lines ("." then matches "\n" too). ^ and $ always match at
// line boundaries. The error of an invalid pattern quotes regexp's message.
func Compile(pattern string, caseInsensitive, multiline bool) (*Matcher, error) {
	flags := "(?m"
	if caseInsensitive {
		flags += "i"
	}
	if multiline {
		flags += "s"
	}
	flags += ")"
	tree, err := syntax.Parse(flags+pattern, syntax.Perl)
	if err != nil {
		if e, ok := err.(*syntax.Error); ok {
			e.Expr = strings.TrimPrefix(e.Expr, flags) // quote the caller's pattern
		}
		return nil, fmt.Errorf("invalid pattern %q: %w", pattern, err)
	}
	// regexp parses the same text again: it takes no parsed tree.
	re, err := regexp.Compile(flags + pattern)
	if err != nil {
		return nil, fmt.Errorf("invalid pattern %q: %w", pattern, err)
	}
	m := &Matcher{re: re, multiline: multiline, size: len(pattern)}
	if set, n := classRun(tree); n >= minRunLen && !multiline {
		m.run, m.runLen = set, n
	}
	tree = tree.Simplify()
	m.tree = tree
	m.perLine = hasTextAnchor(tree)
	if multiline {
		return m, nil
	}
	// regexp compiles the same simplified tree of the same text.
	if prog, err := syntax.Compile(tree); err == nil {
		m.dfa = newLineDFA(prog)
	}
	m.whole = newWholeLiteral(tree)
	lit := required(tree)
	if len(lit.runes) == 0 {
		return m, nil
	}
	m.lit = []byte(string(lit.runes))
	m.never = bytes.IndexByte(m.lit, '\n') >= 0
	m.fold = lit.fold
	m.exact = lit.whole && !m.perLine
	m.rare = rarest(m.lit, m.fold)
	m.ascii = !slices.ContainsFunc(m.lit, func(c byte) bool { return c >= utf8.RuneSelf })
	if m.fold {
		c := m.lit[m.rare]
		m.rareLo, m.rareUp = lower(c), upper(c)
		if len(m.lit) >= 2 {
			m.pair = newBytePair(m.lit, m.rare, rarestBut(m.lit, true, m.rare), true)
		}
	} else if len(m.lit) >= 2 && pairAsm {
		// Exact, the pair beats bytes.IndexByte in assembly only: on
		// source text, where the rare byte is common ('U' of PM_RESUME
		// in C), by 3-6x (BenchmarkPairFind); where it never occurs the
		// pair is about 1.5x slower, both past 40 GB/s.
		m.pair = newBytePair(m.lit, m.rare, rarestBut(m.lit, false, m.rare), false)
	}
	return m, nil
}

// Syntax returns the pattern's parsed, simplified tree, with the flags it was
// compiled with (the content index plans from it). The caller must not
// modify it.
func (m *Matcher) Syntax() *syntax.Regexp { return m.tree }

// minRunLen is the shortest class run worth a prefilter: shorter runs are
// found on nearly every line.
const minRunLen = 2

// classRun returns an ASCII byte class every match holds n times in a row
// (e.g. [0-9]{10}), choosing the longest such run, or n = 0. It reads the
// parsed tree before Simplify, which would unroll the repeat.
func classRun(re *syntax.Regexp) (*[256]bool, int) {
	switch re.Op {
	case syntax.OpCapture:
		return classRun(re.Sub[0])
	case syntax.OpRepeat, syntax.OpPlus:
		min := 1
		if re.Op == syntax.OpRepeat {
			min = re.Min
		}
		if min < 1 {
			return nil, 0
		}
		if set := byteClass(re.Sub[0]); set != nil {
			return set, min
		}
		return classRun(re.Sub[0])
	case syntax.OpConcat:
		var best *[256]bool
		n := 0
		for _, sub := range re.Sub {
			if set, k := classRun(sub); k > n {
				best, n = set, k
			}
		}
		return best, n
	}
	return nil, 0
}

// byteClass returns the byte set of a character class that holds ASCII
// characters only, or nil.
func byteClass(re *syntax.Regexp) *[256]bool {
	if re.Op != syntax.OpCharClass {
		return nil
	}
	var set [256]bool
	for i := 0; i+1 < len(re.Rune); i += 2 {
		lo, hi := re.Rune[i], re.Rune[i+1]
		if hi >= utf8.RuneSelf {
			return nil
		}
		for c := lo; c <= hi; c++ {
			set[c] = true
		}
	}
	return &set
}

// findRun returns the start of the first run of m.runLen bytes of m.run at
// or after pos, or -1. It tests the last byte of each window first and
// steps past the first byte outside the class it meets (found from the
// back), so text with short runs costs about one test per runLen bytes.
func (m *Matcher) findRun(buf []byte, pos int) int {
	set, want := m.run, m.runLen
	// No run starts in [pos, i); the bytes of [i, known) are in the class.
	i, known := pos, pos
	for i+want <= len(buf) {
		j := i + want - 1
		for j >= known && set[buf[j]] {
			j--
		}
		if j < known {
			return i
		}
		// A run holding buf[j] cannot be: none starts in [i, j].
		i, known = j+1, i+want
	}
	return -1
}

func hasTextAnchor(re *syntax.Regexp) bool {
	if re.Op == syntax.OpBeginText || re.Op == syntax.OpEndText {
		return true
	}
	for _, s := range re.Sub {
		if hasTextAnchor(s) {
			return true
		}
	}
	return false
}

// literal is a rune string every match contains.
type literal struct {
	runes []rune
	fold  bool
	whole bool // the literal is the whole pattern
}

// foldSafe reports whether r may be searched for with an ASCII case fold:
// ASCII runes other than k, K, s and S (whose case partners U+212A and U+017F
// are not ASCII), and non-ASCII runes with no case partner at all (compared
// exactly).
func foldSafe(r rune) bool {
	if r < utf8.RuneSelf {
		switch r {
		case 'k', 'K', 's', 'S':
			return false
		}
		return true
	}
	return unicode.SimpleFold(r) == r
}

// usable cuts a literal to the longest part that can be scanned for as
// bytes: without U+FFFD (which regexp also matches to a byte that is not
// UTF-8) and, folding, of runes foldSafe allows.
func usable(runes []rune, fold bool) []rune {
	best, start := []rune(nil), 0
	for i := 0; i <= len(runes); i++ {
		if i == len(runes) || runes[i] == utf8.RuneError || fold && !foldSafe(runes[i]) {
			if i-start > len(best) {
				best = runes[start:i]
			}
			start = i + 1
		}
	}
	return best
}

func required(re *syntax.Regexp) literal {
	switch re.Op {
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		u := usable(re.Rune, fold)
		return literal{runes: u, fold: fold && hasLetter(u), whole: len(u) == len(re.Rune)}
	case syntax.OpCapture:
		return required(re.Sub[0])
	case syntax.OpPlus:
		l := required(re.Sub[0])
		l.whole = false
		return l
	case syntax.OpRepeat:
		if re.Min >= 1 {
			l := required(re.Sub[0])
			l.whole = false
			return l
		}
	case syntax.OpConcat:
		var best literal
		for _, s := range re.Sub {
			l := required(s)
			if len(l.runes) > len(best.runes) {
				best = l
			}
		}
		best.whole = best.whole && len(re.Sub) == 1
		return best
	}
	return literal{}
}

func hasLetter(rs []rune) bool {
	for _, r := range rs {
		if lower(byte(r)) != upper(byte(r)) && r < utf8.RuneSelf {
			return true
		}
	}
	return false
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// rarest returns the index of the byte of lit that is least frequent in
// source code and prose, by a fixed rank table. A case-sensitive scan looks
// for the byte itself (an upper-case letter is much rarer than its lower
// case); a folding one for both cases, as frequent as the commoner.
func rarest(lit []byte, fold bool) int { return rarestBut(lit, fold, -1) }

// commonBytes lists bytes from most to least frequent in typical text files.
// "_" ranks with the common lower-case letters: in C (the Linux tree) it is
// 4.7% of all bytes, more than "m", "p" or "u" in both cases together.
const commonBytes = " etaoinsrhldcu_\n\tmfpgwybv,.k()=;\"/-x:0'1{}2*#jq<>zEAST[]RINOLC3DP4$M9586F7&H|BU!G+WV%Y\\?@K^QJX~`Z"

// rarestBut returns the index rarest chooses among the bytes of lit other
// than the one at skip (-1: none skipped), or -1 when no byte is left. Of
// bytes that rank alike, it takes the one farthest from skip: a pair of
// bytes far apart in the literal is less often found together by chance
// (p and m of "pm_resume" stand side by side in pm_runtime, pm_ops, ...;
// p and its last m do not).
func rarestBut(lit []byte, fold bool, skip int) int {
	best, rank := -1, 257
	dist := func(i int) int {
		if skip < 0 {
			return 0
		}
		return max(i-skip, skip-i)
	}
	for i, c := range lit {
		r := byteRank(c)
		if fold {
			r = max(byteRank(lower(c)), byteRank(upper(c)))
		}
		if i != skip && (r < rank || r == rank && dist(i) > dist(best)) {
			best, rank = i, r
		}
	}
	return best
}

func byteRank(c byte) int {
	if i := bytes.IndexByte([]byte(commonBytes), c); i >= 0 {
		return len(commonBytes) - i
	}
	return 0
}

// MatchLines calls fn with the 1-based number and the byte span [start, end)
// (without its "\n") of every line of buf that holds a match, in order, until
// fn returns false. In multiline mode every line a match spans is reported.
func (m *Matcher) MatchLines(buf []byte, fn func(n, start, end int) bool) {
	switch {
	case m.never:
	case m.multiline:
		m.multilineScan(buf, fn)
	case m.perLine:
		lineScan(buf, func(n, s, e int) bool {
			if m.lineMatch(buf[s:e]) {
				return fn(n, s, e)
			}
			return true
		})
	case len(m.lit) > 0:
		m.literalScan(buf, fn)
	case m.whole != nil:
		lineScan(buf, func(n, s, e int) bool {
			if m.whole.matchLine(buf[s:e]) {
				return fn(n, s, e)
			}
			return true
		})
	case m.run != nil:
		m.runScan(buf, fn)
	default:
		m.regexScan(buf, fn)
	}
}

// lines tracks line numbers while a scan moves forward.
type lines struct {
	buf  []byte
	pos  int // counted up to here
	line int // line number at pos
}

// at returns the number, start and end of the line holding offset i (≥ pos).
func (l *lines) at(i int) (n, start, end int) {
	start = bytes.LastIndexByte(l.buf[l.pos:i], '\n') + 1 + l.pos
	if start > l.pos {
		l.line += bytes.Count(l.buf[l.pos:start], []byte{'\n'})
	}
	l.pos = start
	end = bytes.IndexByte(l.buf[i:], '\n')
	if end < 0 {
		end = len(l.buf)
	} else {
		end += i
	}
	return l.line, start, end
}

// next moves past the line ending at end.
func (l *lines) next(end int) int {
	if end < len(l.buf) {
		l.pos = end + 1
		l.line++
	} else {
		l.pos = end
	}
	return l.pos
}

func (m *Matcher) literalScan(buf []byte, fn func(n, start, end int) bool) {
	scanCandidates(buf, m.find, m.literalConfirm, fn)
}

// literalConfirm reports whether a line holding the literal matches: at
// once when the literal is the pattern, by the pattern's literal when the
// pattern is one (a fold literal with k or s, U+FFFD), else by the regexp.
func (m *Matcher) literalConfirm(line []byte) bool {
	switch {
	case m.exact:
		return true
	case m.whole != nil:
		return m.whole.matchLine(line)
	}
	return (m.run == nil || m.findRun(line, 0) >= 0) && m.lineMatch(line)
}

// scanCandidates walks buf from its start: find returns the offset of the
// next candidate at or after pos (or -1), confirm decides whether the line
// holding it matches, and fn receives each matching line (number, start,
// end without its "\n") until it returns false. Each line is visited once.
func scanCandidates(buf []byte, find func(buf []byte, pos int) int, confirm func(line []byte) bool, fn func(n, start, end int) bool) {
	ln := lines{buf: buf, line: 1}
	pos := 0
	for pos < len(buf) {
		i := find(buf, pos)
		if i < 0 {
			return
		}
		n, s, e := ln.at(i)
		if confirm(buf[s:e]) && !fn(n, s, e) {
			return
		}
		pos = ln.next(e)
	}
}

// absentFrom reports whether text holds no match in any encoding a file
// holding text could be decoded from (UTF-8, and the legacy encodings of
// textenc, all of which decode each byte below 0x80 that is not part of a
// multi-byte character to itself, and never decode other bytes to one below
// 0x80): the pattern requires an ASCII literal and text does not contain
// it. A decoded text's ASCII characters that stand side by side stand side
// by side in text, so no decoding can make the literal appear. A UTF-16
// text (told by its BOM) is not covered.
func (m *Matcher) absentFrom(text []byte) bool {
	return m.ascii && m.find(text, 0) < 0
}

// find returns the offset of the first occurrence of lit at or after pos, or -1.
func (m *Matcher) find(buf []byte, pos int) int {
	if m.pair != nil {
		return m.pair.index(buf, pos)
	}
	lit, r := m.lit, m.rare
	if !m.fold {
		if len(lit) == 1 {
			if i := bytes.IndexByte(buf[pos:], lit[0]); i >= 0 {
				return pos + i
			}
			return -1
		}
		for {
			if pos+len(lit) > len(buf) {
				return -1
			}
			i := bytes.IndexByte(buf[pos+r:len(buf)-len(lit)+r+1], lit[r])
			if i < 0 {
				return -1
			}
			s := pos + i
			if bytes.Equal(buf[s:s+len(lit)], lit) {
				return s
			}
			pos = s + 1
		}
	}
	lo, up := m.rareLo, m.rareUp
	nextLo, nextUp := -2, -2 // -2: not searched yet past pos
	for {
		if pos+len(lit) > len(buf) {
			return -1
		}
		hay := buf[:len(buf)-len(lit)+r+1]
		if nextLo != -1 && nextLo < pos+r {
			nextLo = indexFrom(hay, pos+r, lo)
		}
		if lo == up {
			nextUp = nextLo
		} else if nextUp != -1 && nextUp < pos+r {
			nextUp = indexFrom(hay, pos+r, up)
		}
		c := nextLo
		if c < 0 || (nextUp >= 0 && nextUp < c) {
			c = nextUp
		}
		if c < 0 {
			return -1
		}
		s := c - r
		if foldEqual(buf[s:s+len(lit)], lit) {
			return s
		}
		pos = s + 1
	}
}

func indexFrom(b []byte, from int, c byte) int {
	if from >= len(b) {
		return -1
	}
	if i := bytes.IndexByte(b[from:], c); i >= 0 {
		return from + i
	}
	return -1
}

// foldEqual compares a and lit (equal lengths) folding ASCII letter case.
func foldEqual(a, lit []byte) bool {
	for i := range lit {
		if a[i] != lit[i] && lower(a[i]) != lower(lit[i]) {
			return false
		}
	}
	return true
}

// runScan finds candidate lines by their class run and confirms each with
// the regexp.
func (m *Matcher) runScan(buf []byte, fn func(n, start, end int) bool) {
	scanCandidates(buf, m.findRun, m.lineMatch, fn)
}

// lineMatch reports whether the regexp matches line (which holds no "\n"),
// asking the DFA first.
func (m *Matcher) lineMatch(line []byte) bool {
	if m.dfa != nil {
		if matched, ok := m.dfa.match(line); ok {
			return matched
		}
	}
	return m.re.Match(line)
}

// regexScan asks the DFA about every line when there is one. Otherwise it
// runs the regexp over the buffer and confirms each hit on its line alone: a
// match crossing a newline must not count, and no line before the first
// buffer match can match on its own.
func (m *Matcher) regexScan(buf []byte, fn func(n, start, end int) bool) {
	if m.dfa != nil {
		// The DFA reads each byte once; a line it cannot decide goes to
		// the regexp alone.
		lineScan(buf, func(n, s, e int) bool {
			if m.lineMatch(buf[s:e]) {
				return fn(n, s, e)
			}
			return true
		})
		return
	}
	ln := lines{buf: buf, line: 1}
	pos := 0
	for pos < len(buf) {
		loc := m.re.FindIndex(buf[pos:])
		if loc == nil || pos+loc[0] == len(buf) && buf[len(buf)-1] == '\n' {
			return // an empty match after the final newline is on no line
		}
		n, s, e := ln.at(pos + loc[0])
		if m.re.Match(buf[s:e]) {
			if !fn(n, s, e) {
				return
			}
		}
		pos = ln.next(e)
	}
}

func (m *Matcher) multilineScan(buf []byte, fn func(n, start, end int) bool) {
	ln := lines{buf: buf, line: 1}
	pos, last := 0, 0 // last: number of the last line reported
	for pos <= len(buf) {
		loc := m.re.FindIndex(buf[pos:])
		if loc == nil {
			return
		}
		ms, me := pos+loc[0], pos+loc[1]
		if ms == len(buf) && len(buf) > 0 && buf[len(buf)-1] == '\n' {
			return // an empty match after the final newline is on no line
		}
		for {
			n, s, e := ln.at(ms)
			if n > last {
				last = n
				if !fn(n, s, e) {
					return
				}
			}
			if e+1 >= me || e >= len(buf) {
				break
			}
			ms = e + 1
		}
		if me > pos+loc[0] {
			pos = me
		} else {
			pos = me + 1
		}
		if pos > len(buf) {
			return
		}
	}
}

// lineScan calls fn for every line of buf.
func lineScan(buf []byte, fn func(n, start, end int) bool) {
	n := 1
	for s := 0; s < len(buf); n++ {
		e := bytes.IndexByte(buf[s:], '\n')
		if e < 0 {
			e = len(buf)
		} else {
			e += s
		}
		if !fn(n, s, e) {
			return
		}
		s = e + 1
	}
}
