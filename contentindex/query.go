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
// each entry of Tri is a term: a trigram, possibly with the follower bit of
// the byte that must come after it (see term).
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
	s := strings.ToValidUTF8(string([]byte{byte(t >> 16), byte(t >> 8), byte(t)}), "?")
	if f := t >> followShift; f != 0 {
		s += fmt.Sprintf("+%d", f-1)
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
	return and(q, alt)
}

// stringQuery is the AND of the terms of symbol string s: per window of
// three symbols, its trigram with the follower bit of the next symbol, or
// the OR of the case variants when the window holds either-case letters.
func stringQuery(s string) *Query {
	one := allQuery
	n := nsym(s)
	for i := 0; i+3 <= n; i++ {
		var next uint32
		if i+3 < n {
			next = uint32(followBit[foldTable[s[(i+3)*symLen+1]]]+1) << followShift
		}
		variants := []uint32{0}
		for k := range 3 {
			kind, c := s[(i+k)*symLen], s[(i+k)*symLen+1]
			var grown []uint32
			for _, v := range variants {
				grown = append(grown, v<<8|uint32(c))
				if kind == 1 {
					grown = append(grown, v<<8|uint32(c-'a'+'A'))
				}
			}
			variants = grown
		}
		w := &Query{Op: OpOr}
		for _, v := range variants {
			w.Tri = append(w.Tri, v|next)
		}
		one = and(one, w)
	}
	return one
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
