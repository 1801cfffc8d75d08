package contentindex

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolrpc/toolrpc/limits"
)

// Plan returns the trigram query of a grep pattern: re is its parsed,
// simplified tree with the flags it was compiled with (search.Matcher.Syntax),
// size the pattern's length in bytes. Every text the pattern matches satisfies
// the query. A pattern with no usable trigram, or longer than
// limits.IndexMaxPatternBytes, yields a query whose Op is OpAll.
func Plan(re *syntax.Regexp, size int) *Query {
	if size > limits.IndexMaxPatternBytes {
		return allQuery
	}
	i := analyze(re)
	i.simplify(true)
	i.addExact()
	q := i.match
	if (q.Op == OpAnd || q.Op == OpOr) && !canMatchNewline(re) {
		c := *q
		c.Lines = true
		q = &c
	}
	return q
}

// info is what the planner knows about the texts a regexp node matches.
// The strings in its sets are symbol strings (see sym).
type info struct {
	canEmpty bool
	// hasExact: exact is the set of every text the node matches (possibly
	// empty: the node matches nothing). Else prefix and suffix hold strings
	// one of which starts (ends) every match.
	hasExact       bool
	exact          []string
	prefix, suffix []string
	// match is a query every match satisfies.
	match *Query
}

func anyChar() info {
	return info{prefix: []string{""}, suffix: []string{""}, match: allQuery}
}

func anyMatch() info {
	return info{canEmpty: true, prefix: []string{""}, suffix: []string{""}, match: allQuery}
}

func emptyString() info {
	return info{canEmpty: true, hasExact: true, exact: []string{""}, match: allQuery}
}

func noMatch() info { return info{hasExact: true, exact: []string{}, match: noneQuery} }

func analyze(re *syntax.Regexp) info {
	switch re.Op {
	case syntax.OpNoMatch:
		return noMatch()
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return emptyString()
	case syntax.OpLiteral:
		acc := emptyString()
		for _, r := range re.Rune {
			acc = concat(acc, runeInfo(r, re.Flags&syntax.FoldCase != 0))
		}
		return acc
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return anyChar()
	case syntax.OpCharClass:
		return classInfo(re.Rune)
	case syntax.OpCapture:
		return analyze(re.Sub[0])
	case syntax.OpStar:
		return anyMatch()
	case syntax.OpQuest:
		return alternate(analyze(re.Sub[0]), emptyString())
	case syntax.OpPlus:
		return concat(analyze(re.Sub[0]), anyMatch())
	case syntax.OpRepeat:
		// Simplify leaves no repeat; be safe anyway.
		if re.Min == 0 {
			return anyMatch()
		}
		return concat(analyze(re.Sub[0]), anyMatch())
	case syntax.OpConcat:
		acc := emptyString()
		for _, s := range re.Sub {
			acc = concat(acc, analyze(s))
		}
		return acc
	case syntax.OpAlternate:
		acc := noMatch()
		for _, s := range re.Sub {
			acc = alternate(acc, analyze(s))
		}
		return acc
	}
	return anyMatch()
}

// runeInfo is the info of one literal rune. U+FFFD also matches any byte
// that is not valid UTF-8 (regexp decodes such a byte as U+FFFD), so it
// stands for an unknown character.
func runeInfo(r rune, fold bool) info {
	if r == utf8.RuneError {
		return anyChar()
	}
	if !fold {
		return info{hasExact: true, exact: []string{sym(string(r), false)}, match: allQuery}
	}
	var set []string
	f := r
	for {
		set = append(set, sym(string(f), true))
		if f = unicode.SimpleFold(f); f == r {
			break
		}
	}
	return info{hasExact: true, exact: dedup(set), match: allQuery}
}

// Symbol strings: the planner's strings hold two bytes per text byte, a
// kind and the byte. Kind 0 is that byte exactly; kind 1 is an ASCII letter
// (stored lower-case) in either case, so a case-insensitive literal stays
// one string instead of 2^n, while a case-sensitive one keeps its case.
const symLen = 2

// sym returns the symbol string of text; fold makes ASCII letters either-case.
func sym(text string, fold bool) string {
	b := make([]byte, 0, symLen*len(text))
	for i := 0; i < len(text); i++ {
		c := text[i]
		if fold && isASCIILetter(c) {
			b = append(b, 1, foldTable[c])
		} else {
			b = append(b, 0, c)
		}
	}
	return string(b)
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// nsym returns the number of symbols of a symbol string.
func nsym(s string) int { return len(s) / symLen }

// classInfo is the info of a character class given as rune ranges.
func classInfo(ranges []rune) info {
	n := 0
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if lo <= utf8.RuneError && utf8.RuneError <= hi {
			return anyChar()
		}
		n += int(hi-lo) + 1
		if n > 4*limits.IndexMaxClassRunes {
			return anyChar()
		}
	}
	in := map[rune]bool{}
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			in[r] = true
		}
	}
	var set []string
	for r := range in {
		// Both cases of an ASCII letter: one either-case symbol.
		if r < utf8.RuneSelf && isASCIILetter(byte(r)) && in[r^0x20] {
			set = append(set, sym(string(r), true))
			continue
		}
		set = append(set, sym(string(r), false))
	}
	set = dedup(set)
	if len(set) > limits.IndexMaxClassRunes {
		return anyChar()
	}
	return info{hasExact: true, exact: set, match: allQuery}
}

func concat(x, y info) info {
	var xy info
	xy.match = and(x.match, y.match)
	switch {
	case x.hasExact && y.hasExact:
		xy.hasExact = true
		xy.exact = cross(x.exact, y.exact)
	default:
		if x.hasExact {
			xy.prefix = cross(x.exact, y.prefix)
		} else {
			xy.prefix = x.prefix
			if x.canEmpty {
				xy.prefix = union(xy.prefix, y.prefix)
			}
		}
		if y.hasExact {
			xy.suffix = cross(x.suffix, y.exact)
		} else {
			xy.suffix = y.suffix
			if y.canEmpty {
				xy.suffix = union(xy.suffix, x.suffix)
			}
		}
	}
	// Trigrams across the boundary of two inexact halves.
	if !x.hasExact && !y.hasExact && len(x.suffix) <= limits.IndexMaxAffixSet &&
		len(y.prefix) <= limits.IndexMaxAffixSet && minLen(x.suffix)+minLen(y.prefix) >= 3 {
		xy.match = andTrigrams(xy.match, cross(x.suffix, y.prefix))
	}
	xy.canEmpty = x.canEmpty && y.canEmpty
	xy.simplify(false)
	return xy
}

func alternate(x, y info) info {
	var xy info
	switch {
	case x.hasExact && y.hasExact:
		xy.hasExact = true
		xy.exact = union(x.exact, y.exact)
	case x.hasExact:
		xy.prefix = union(x.exact, y.prefix)
		xy.suffix = union(x.exact, y.suffix)
		x.addExact()
	case y.hasExact:
		xy.prefix = union(x.prefix, y.exact)
		xy.suffix = union(x.suffix, y.exact)
		y.addExact()
	default:
		xy.prefix = union(x.prefix, y.prefix)
		xy.suffix = union(x.suffix, y.suffix)
	}
	xy.canEmpty = x.canEmpty || y.canEmpty
	xy.match = or(x.match, y.match)
	xy.simplify(false)
	return xy
}

// addExact ANDs the trigrams of the exact set into match.
func (i *info) addExact() {
	if i.hasExact {
		i.match = andTrigrams(i.match, i.exact)
	}
}

// maxExactLen is the length past which exact strings are turned into
// trigrams, so cross products stay cheap.
const maxExactLen = 16

// simplify keeps the sets small: an exact set too large (or any, when
// forced) becomes trigrams plus two-byte prefixes and suffixes, and affix
// sets are trimmed after their trigrams are kept in match.
func (i *info) simplify(force bool) {
	if i.hasExact {
		i.exact = dedup(i.exact)
		if len(i.exact) > limits.IndexMaxExactSet || (force && minLen(i.exact) >= 3) || minLen(i.exact) > maxExactLen {
			i.addExact()
			i.prefix, i.suffix = nil, nil
			for _, s := range i.exact {
				i.prefix = append(i.prefix, s[:min(len(s), 2*symLen)])
				i.suffix = append(i.suffix, s[max(0, len(s)-2*symLen):])
			}
			i.hasExact, i.exact = false, nil
		}
	}
	if !i.hasExact {
		i.prefix = i.simplifySet(i.prefix, false)
		i.suffix = i.simplifySet(i.suffix, true)
	}
}

// simplifySet ANDs the trigrams of an affix set into match, then trims its
// strings to two bytes, and shorter until the set is small enough.
func (i *info) simplifySet(set []string, suffix bool) []string {
	set = clean(slices.Clone(set), suffix)
	i.match = andTrigrams(i.match, set)
	for n := 2; n == 2 || (len(set) > limits.IndexMaxAffixSet && n >= 0); n-- {
		for k, s := range set {
			if nsym(s) > n {
				if suffix {
					set[k] = s[len(s)-n*symLen:]
				} else {
					set[k] = s[:n*symLen]
				}
			}
		}
		set = clean(set, suffix)
	}
	return set
}

// clean sorts and dedups an affix set and drops strings another member starts
// (suffix: ends) with: the shorter string says everything the longer does.
func clean(set []string, suffix bool) []string {
	key := func(s string) string { return s }
	if suffix {
		key = reverse
	}
	slices.SortFunc(set, func(a, b string) int { return strings.Compare(key(a), key(b)) })
	out := set[:0]
	for _, s := range set {
		if len(out) > 0 {
			last := out[len(out)-1]
			if s == last || (!suffix && strings.HasPrefix(s, last)) || (suffix && strings.HasSuffix(s, last)) {
				continue
			}
		}
		out = append(out, s)
	}
	return out
}

// dedup sorts an exact set and drops repeated strings; unlike clean it keeps
// every distinct string, since each is a text the node matches.
func dedup(set []string) []string {
	set = slices.Clone(set)
	slices.Sort(set)
	return slices.Compact(set)
}

// reverse reverses the symbols of a symbol string.
func reverse(s string) string {
	b := make([]byte, 0, len(s))
	for i := len(s) - symLen; i >= 0; i -= symLen {
		b = append(b, s[i:i+symLen]...)
	}
	return string(b)
}

func cross(a, b []string) []string {
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return out
}

func union(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	return append(append(out, a...), b...)
}

// minLen returns the fewest symbols of a string of set.
func minLen(set []string) int {
	if len(set) == 0 {
		return 0
	}
	m := nsym(set[0])
	for _, s := range set[1:] {
		m = min(m, nsym(s))
	}
	return m
}
