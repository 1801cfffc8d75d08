package contentindex

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolrpc/toolrpc/limits"
)

// Op is the kind of a Query node.
type Op uint8

const (
	// OpAll matches every file: the pattern gave no usable trigram.
	OpAll Op = iota
	// OpNone matches no file: the pattern can match no text.
	OpNone
	// OpAnd matches files holding every trigram of Tri and matching every Sub.
	OpAnd
	// OpOr matches files holding any trigram of Tri or matching any Sub.
	OpOr
)

// Query is a boolean trigram query. Every text a pattern matches satisfies
// the pattern's query, so a file that fails it cannot hold a match.
// Trigrams are folded (ASCII letters lower-cased), as the index stores them;
// each entry of Tri is a term: a trigram, possibly with the follower bits
// of the byte and of the three bytes that must come after it and the case
// patterns it may have (see followShift), so a case-insensitive query reads
// the same one posting list per trigram as a case-sensitive one.
type Query struct {
	Op  Op
	Tri []uint64
	Sub []*Query
	// Lines (set by Plan on the root) says that no match holds a line
	// break, so a file holds a match only if one of its blocks (see
	// blockCutter) satisfies the query alone.
	Lines bool
}

var (
	allQuery  = &Query{Op: OpAll}
	noneQuery = &Query{Op: OpNone}
)

// String renders the query for tests and logs, e.g. `"abc" "bcd" ("xyz"|"uvw")`.
func (q *Query) String() string {
	switch q.Op {
	case OpAll:
		return "+"
	case OpNone:
		return "-"
	}
	sep := " "
	if q.Op == OpOr {
		sep = "|"
	}
	var parts []string
	for _, t := range q.Tri {
		parts = append(parts, `"`+triString(t)+`"`)
	}
	for _, s := range q.Sub {
		parts = append(parts, "("+s.String()+")")
	}
	return strings.Join(parts, sep)
}

// triString renders a term: its folded trigram, then "/" and the cases it
// asks for (l caseLower, u caseUpper), then "+" and its follower bit and
// "^" and its three-byte follower bit, if any.
func triString(t uint64) string {
	s := strings.ToValidUTF8(string([]byte{byte(t >> 16), byte(t >> 8), byte(t)}), "?")
	if cases := uint8(t >> caseShift); cases != 0 {
		s += "/"
		for i, name := range "lu" {
			if cases&(1<<i) != 0 {
				s += string(name)
			}
		}
	}
	if f := t >> followShift & followMask; f != 0 {
		s += fmt.Sprintf("+%d", f-1)
	}
	if f := t >> follow3Shift & followMask; f != 0 {
		s += fmt.Sprintf("^%d", f-1)
	}
	return s
}

// and returns the query matching what both a and b match.
func and(a, b *Query) *Query { return combine(OpAnd, a, b) }

// or returns the query matching what a or b matches.
func or(a, b *Query) *Query { return combine(OpOr, a, b) }

// combine builds a op b, flattening nested nodes of the same op and letting
// All and None absorb or vanish.
func combine(op Op, a, b *Query) *Query {
	absorb, identity := OpNone, OpAll // for AND
	if op == OpOr {
		absorb, identity = OpAll, OpNone
	}
	switch {
	case a.Op == absorb || b.Op == absorb:
		return &Query{Op: absorb}
	case a.Op == identity:
		return b
	case b.Op == identity:
		return a
	}
	r := &Query{Op: op}
	for _, q := range []*Query{a, b} {
		if q.Op == op {
			r.Tri = append(r.Tri, q.Tri...)
			r.Sub = append(r.Sub, q.Sub...)
			continue
		}
		if len(q.Tri) == 1 && len(q.Sub) == 0 {
			r.Tri = append(r.Tri, q.Tri[0]) // one trigram: AND and OR agree
			continue
		}
		r.Sub = append(r.Sub, q)
	}
	slices.Sort(r.Tri)
	r.Tri = slices.Compact(r.Tri)
	if len(r.Tri)+len(r.Sub) > limits.IndexMaxQueryTerms {
		if op == OpOr {
			return allQuery // dropping an alternative would drop its matches
		}
		// Fewer conjuncts: a weaker query, still implied by every match.
		r.Tri = r.Tri[:min(len(r.Tri), limits.IndexMaxQueryTerms)]
		r.Sub = r.Sub[:min(len(r.Sub), limits.IndexMaxQueryTerms-len(r.Tri))]
	}
	return r
}

// andTrigrams ANDs q with the query "the text holds one of the strings of
// set" (symbol strings, see sym): an OR over the strings of the AND of each
// string's terms. A string shorter than three symbols requires nothing, so
// it makes the OR match all.
func andTrigrams(q *Query, set []string) *Query {
	if len(set) == 0 {
		return q // an empty set stems from no-match nodes, whose match is None already
	}
	alt := noneQuery
	for _, s := range set {
		if nsym(s) < 3 {
			return q
		}
		alt = or(alt, stringQuery(s))
	}
	return and(q, factor(alt))
}

// factor pulls the terms every alternative of an OR of ANDs requires out
// of the OR, so each of their lists is read once: (a b c)|(a b d) becomes
// a b (c|d). Other queries are returned as they are.
func factor(q *Query) *Query {
	if q.Op != OpOr || len(q.Tri) > 0 || len(q.Sub) < 2 {
		return q
	}
	common := q.Sub[0].Tri
	for _, s := range q.Sub {
		if s.Op != OpAnd {
			return q
		}
		common = slices.DeleteFunc(slices.Clone(common), func(t uint64) bool {
			_, in := slices.BinarySearch(s.Tri, t)
			return !in
		})
	}
	if len(common) == 0 {
		return q
	}
	rest := noneQuery
	for _, s := range q.Sub {
		left := &Query{Op: OpAnd, Sub: s.Sub}
		for _, t := range s.Tri {
			if _, in := slices.BinarySearch(common, t); !in {
				left.Tri = append(left.Tri, t)
			}
		}
		if len(left.Tri)+len(left.Sub) == 0 {
			left = allQuery
		}
		rest = or(rest, left)
	}
	return and(&Query{Op: OpAnd, Tri: common}, rest)
}

// stringQuery is the AND of the terms of symbol string s: per window of
// three symbols, its folded trigram with the follower bits of the next
// symbol and of the next three (when s has them) and the case patterns the
// window allows.
func stringQuery(s string) *Query {
	one := allQuery
	n := nsym(s)
	for i := 0; i+3 <= n; i++ {
		var t uint64
		if i+3 < n {
			t = uint64(followBit[foldTable[s[(i+3)*symLen+1]]]+1) << followShift
		}
		if i+6 <= n && !strings.Contains(s[(i+3)*symLen:(i+6)*symLen], "\x00\n") {
			// Three bytes follow; none is a newline, which the end of a
			// text stands for without bytes after it.
			var next uint32
			for k := range 3 {
				next = next<<8 | uint32(foldTable[s[(i+3+k)*symLen+1]])
			}
			t |= uint64(follow3Bit(next)+1) << follow3Shift
		}
		for k := range 3 {
			t |= uint64(foldTable[s[(i+k)*symLen+1]]) << (8 * (2 - k))
		}
		one = and(one, &Query{Op: OpAnd, Tri: []uint64{t | uint64(windowCases(s[i*symLen:(i+3)*symLen]))<<caseShift}})
	}
	return one
}

// windowCases returns the case bits (see caseMaskShift) one of which the
// mask of a document holding a window of three symbols has, or 0 when the
// window holds no letter of a fixed case (any mask will do).
func windowCases(w string) uint8 {
	var letters, upper, either uint32
	for k := range 3 {
		kind, c, bit := w[k*symLen], w[k*symLen+1], uint32(4>>k)
		switch {
		case kind == 1:
			letters, either = letters|bit, either|bit
		case 'A' <= c && c <= 'Z':
			letters, upper = letters|bit, upper|bit
		case 'a' <= c && c <= 'z':
			letters |= bit
		}
	}
	if letters == either {
		return 0
	}
	var set uint8
	for p := range uint32(8) {
		if p&^either == 0 {
			set |= caseOf(letters, upper|p)
		}
	}
	return set
}

// Eval reports whether a file holding exactly the trigrams has admits
// satisfies q.
func (q *Query) Eval(has func(uint64) bool) bool {
	switch q.Op {
	case OpAll:
		return true
	case OpNone:
		return false
	case OpAnd:
		for _, t := range q.Tri {
			if !has(t) {
				return false
			}
		}
		for _, s := range q.Sub {
			if !s.Eval(has) {
				return false
			}
		}
		return true
	default:
		for _, t := range q.Tri {
			if has(t) {
				return true
			}
		}
		for _, s := range q.Sub {
			if s.Eval(has) {
				return true
			}
		}
		return false
	}
}
