package gitignore

import "strings"

// Matcher is one ignore file compiled for matching: it names the last rule
// of the file that matches a path. Literal base names, extensions ("*.o")
// and literal paths are hash lookups; prefixes, suffixes and "dir/**" are
// string tests; only the remaining patterns run wildmatch. It is immutable,
// so any number of goroutines may use it.
type Matcher struct {
	rules []Rule
	names map[string]last // base-name rules without wildcards
	exts  map[string]last // "*.ext" base-name rules, keyed by ".ext"
	paths map[string]last // path rules without wildcards
	base  []test          // other base-name rules, last rule first
	path  []test          // other path rules, last rule first
}

// last holds the index of the last rule under one key that matches any
// entry and of the last one that matches directories only (-1: none).
type last struct{ any, dir int32 }

// test is one rule that a lookup cannot decide.
type test struct {
	idx  int32
	kind testKind
	lit  string // the literal part the kind tests
	pat  string // kindWild: the wildmatch pattern (for a path rule, after lit)
	tail string // kindWild: a literal every match ends with
}

type testKind uint8

const (
	kindSuffix testKind = iota // base name ends in lit ("*lit")
	kindPrefix                 // base name starts with lit ("lit*")
	kindUnder                  // path lies strictly below the directory lit ("lit/**")
	kindWild                   // wildmatch of the rule's pattern (lit: its literal prefix)
)

// Compile parses an ignore file's content (see Parse) and compiles it;
// source names the file in the rules a match returns.
func Compile(source string, data []byte) *Matcher {
	return CompileRules(Parse(source, data))
}

// CompileRules compiles rules, which keep their order: the last matching
// rule decides.
func CompileRules(rules []Rule) *Matcher {
	m := &Matcher{rules: rules}
	for i := range rules {
		m.add(int32(i), &m.rules[i])
	}
	// Tests run last rule first, so a scan stops at the first match.
	reverse(m.base)
	reverse(m.path)
	return m
}

func reverse(ts []test) {
	for i, j := 0, len(ts)-1; i < j; i, j = i+1, j-1 {
		ts[i], ts[j] = ts[j], ts[i]
	}
}

// add files rule i under the cheapest test that decides it exactly.
func (m *Matcher) add(i int32, r *Rule) {
	p := r.pattern
	noDir := r.noDir
	if !noDir && strings.HasPrefix(p, "**/") && !strings.ContainsAny(p[3:], `/\`) && p[3:] != "" {
		// "**/x" matches x against the base name at any depth.
		p, noDir = p[3:], true
	}
	if noDir {
		switch {
		case !hasWildcard(p):
			m.names = put(m.names, p, i, r.dirOnly)
		case p[0] == '*' && !hasWildcard(p[1:]) && strings.LastIndexByte(p, '.') == 1:
			m.exts = put(m.exts, p[1:], i, r.dirOnly)
		case p[0] == '*' && !hasWildcard(p[1:]):
			m.base = append(m.base, test{idx: i, kind: kindSuffix, lit: p[1:]})
		case p[len(p)-1] == '*' && !hasWildcard(p[:len(p)-1]):
			m.base = append(m.base, test{idx: i, kind: kindPrefix, lit: p[:len(p)-1]})
		default:
			m.base = append(m.base, test{idx: i, kind: kindWild, pat: p, tail: literalTail(p)})
		}
		return
	}
	switch {
	case !hasWildcard(p):
		m.paths = put(m.paths, p, i, r.dirOnly)
	case strings.HasSuffix(p, "/**") && !hasWildcard(p[:len(p)-3]):
		m.path = append(m.path, test{idx: i, kind: kindUnder, lit: p[:len(p)-2]})
	default:
		// As git's match_pathname: the literal prefix is compared, then
		// wildmatch runs on the rest, so "foo**/bar" has a leading "**/".
		n := simpleLength(p)
		m.path = append(m.path, test{idx: i, kind: kindWild, lit: p[:n], pat: p[n:], tail: literalTail(p[n:])})
	}
}

// literalTail is the part of a wildmatch pattern after its last special
// byte, less a leading "/" (which "**/" may match without consuming it):
// each of its bytes matches exactly one byte, so every text the pattern
// matches ends with it.
func literalTail(p string) string {
	return strings.TrimPrefix(p[strings.LastIndexAny(p, `*?[]\`)+1:], "/")
}

// simpleLength is the length of p's prefix free of "*?[\".
func simpleLength(p string) int {
	if i := strings.IndexAny(p, `*?[\`); i >= 0 {
		return i
	}
	return len(p)
}

func put(m map[string]last, key string, i int32, dirOnly bool) map[string]last {
	if m == nil {
		m = map[string]last{}
	}
	l, ok := m[key]
	if !ok {
		l = last{any: -1, dir: -1}
	}
	if dirOnly {
		l.dir = i
	} else {
		l.any = i
	}
	m[key] = l
	return m
}

// Len is the number of rules compiled.
func (m *Matcher) Len() int { return len(m.rules) }

// Match returns the last rule that matches path, or nil. path is
// slash-separated and relative to the ignore file's directory (no leading,
// trailing or doubled slash); isDir tells whether it names a directory
// (directory-only rules match nothing else). A path is ignored when the
// rule is non-nil and not a negation.
func (m *Matcher) Match(path string, isDir bool) *Rule {
	name := path[strings.LastIndexByte(path, '/')+1:]
	best := int32(-1)
	if m.names != nil {
		best = pick(best, m.names, name, isDir)
	}
	if m.exts != nil {
		if dot := strings.LastIndexByte(name, '.'); dot >= 0 {
			best = pick(best, m.exts, name[dot:], isDir)
		}
	}
	if m.paths != nil {
		best = pick(best, m.paths, path, isDir)
	}
	best = m.scan(best, m.base, name, true, isDir)
	best = m.scan(best, m.path, path, false, isDir)
	if best < 0 {
		return nil
	}
	return &m.rules[best]
}

// pick returns the later of best and the rule under key.
func pick(best int32, m map[string]last, key string, isDir bool) int32 {
	l, ok := m[key]
	if !ok {
		return best
	}
	best = max(best, l.any)
	if isDir {
		best = max(best, l.dir)
	}
	return best
}

// scan returns the later of best and the first test of ts (last rule
// first) that matches s, a base name (base) or a path.
func (m *Matcher) scan(best int32, ts []test, s string, base, isDir bool) int32 {
	for k := range ts {
		t := &ts[k]
		if t.idx <= best {
			return best
		}
		r := &m.rules[t.idx]
		if r.dirOnly && !isDir {
			continue
		}
		var ok bool
		switch t.kind {
		case kindSuffix:
			ok = strings.HasSuffix(s, t.lit)
		case kindPrefix:
			ok = strings.HasPrefix(s, t.lit)
		case kindUnder:
			ok = len(s) > len(t.lit) && strings.HasPrefix(s, t.lit)
		case kindWild:
			if !strings.HasSuffix(s, t.tail) {
				break
			}
			if base {
				ok = Wildmatch(t.pat, s, false)
			} else {
				ok = strings.HasPrefix(s, t.lit) && Wildmatch(t.pat, s[len(t.lit):], true)
			}
		}
		if ok {
			return t.idx
		}
	}
	return best
}
