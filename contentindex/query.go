package contentindex

import (
	"slices"
	"strings"
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
// Trigrams are folded (ASCII letters lower-cased), as the index stores them.
type Query struct {
	Op  Op
	Tri []uint32
	Sub []*Query
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

func triString(t uint32) string {
	return strings.ToValidUTF8(string([]byte{byte(t >> 16), byte(t >> 8), byte(t)}), "?")
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
	return r
}

// andTrigrams ANDs q with the query "the text holds one of the strings of
// set": an OR over the strings of the AND of each string's trigrams. A string
// shorter than three bytes requires nothing, so it makes the OR match all.
func andTrigrams(q *Query, set []string) *Query {
	if len(set) == 0 {
		return q // an empty set stems from no-match nodes, whose match is None already
	}
	alt := noneQuery
	for _, s := range set {
		if len(s) < 3 {
			return q
		}
		one := &Query{Op: OpAnd}
		for i := 0; i+3 <= len(s); i++ {
			one.Tri = append(one.Tri, pack(s[i], s[i+1], s[i+2]))
		}
		slices.Sort(one.Tri)
		one.Tri = slices.Compact(one.Tri)
		if len(one.Tri) == 1 {
			one = &Query{Op: OpOr, Tri: one.Tri}
		}
		alt = or(alt, one)
	}
	return and(q, alt)
}

// Eval reports whether a file holding exactly the trigrams has admits
// satisfies q.
func (q *Query) Eval(has func(uint32) bool) bool {
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
