package search

import (
	"encoding/binary"
	"regexp/syntax"
	"slices"
	"sync"
	"sync/atomic"
)

// Bounds of a line DFA: past maxDFAStates states a line is left to the
// regexp; programs longer than maxDFAProg get no DFA (building a state costs
// time linear in the program).
const (
	maxDFAStates = 256
	maxDFAProg   = 2000
)

// Transition table entries other than a state (stored as index+1).
const (
	dfaUnknown = 0  // not built yet
	dfaGiveUp  = -1 // the state budget is spent: ask the regexp
	dfaMatched = -2 // a match ends here: the line matches
)

// Empty-width context of a line: its start and its end. Inside a line no
// empty-width assertion other than a word boundary can hold (a line holds no
// "\n"), and programs with word boundaries get no DFA.
const (
	flagsBegin = syntax.EmptyBeginLine | syntax.EmptyBeginText
	flagsEnd   = syntax.EmptyEndLine | syntax.EmptyEndText
)

// lineDFA answers "does the program match somewhere in this line?" for lines
// of ASCII bytes, exactly as regexp's Match on the line would, by a lazily
// built deterministic automaton over the program's instruction sets (an
// unanchored search: the start is re-added at every position). It is safe
// for concurrent use: states are built under mu and published through the
// atomic transition table; a state's fields are written before the
// transition naming it.
type lineDFA struct {
	prog *syntax.Prog

	mu    sync.Mutex
	sets  [][]uint32       // instruction set of each state (under mu)
	index map[string]int32 // set key → state (under mu)
	buf   sparse           // scratch (under mu)

	trans      *[maxDFAStates << 7]atomic.Int32 // state<<7 | byte → entry
	acceptEnd  [maxDFAStates]bool               // a match ends at the end of a line in this state
	start      int32                            // state at position 0 of a non-empty line
	startMatch bool                             // the empty match at position 0 holds: every non-empty line matches
	emptyLine  bool                             // an empty line matches
}

// newLineDFA returns the DFA of prog, or nil when prog has word-boundary
// assertions or is too long.
func newLineDFA(prog *syntax.Prog) *lineDFA {
	if len(prog.Inst) > maxDFAProg {
		return nil
	}
	for _, in := range prog.Inst {
		if in.Op == syntax.InstEmptyWidth && syntax.EmptyOp(in.Arg)&(syntax.EmptyWordBoundary|syntax.EmptyNoWordBoundary) != 0 {
			return nil
		}
	}
	d := &lineDFA{
		prog:  prog,
		index: map[string]int32{},
		buf:   newSparse(len(prog.Inst)),
		trans: new([maxDFAStates << 7]atomic.Int32),
	}
	d.buf.clear()
	d.closure(uint32(prog.Start), flagsBegin|flagsEnd)
	d.emptyLine = d.buf.has(d.prog, syntax.InstMatch)
	d.buf.clear()
	d.closure(uint32(prog.Start), flagsBegin)
	d.startMatch = d.buf.has(d.prog, syntax.InstMatch)
	d.start = d.intern()
	return d
}

// match reports whether line (no "\n") holds a match; ok is false when the
// DFA cannot tell (a byte ≥ 0x80, or the state budget is spent) and the
// regexp must answer.
func (d *lineDFA) match(line []byte) (matched, ok bool) {
	if len(line) == 0 {
		return d.emptyLine, true
	}
	if d.startMatch {
		return true, true
	}
	st, trans := d.start, d.trans
	for _, b := range line {
		if b >= 0x80 {
			return false, false
		}
		// The mask changes no index (st < maxDFAStates); it drops the bounds check.
		t := trans[(uint(st)<<7|uint(b))&(maxDFAStates<<7-1)].Load()
		if t <= 0 {
			if t == dfaUnknown {
				t = d.build(st, b)
			}
			switch t {
			case dfaMatched:
				return true, true
			case dfaGiveUp:
				return false, false
			}
		}
		st = t - 1
	}
	return d.acceptEnd[st], true
}

// build computes, stores and returns the transition of state st on byte b.
func (d *lineDFA) build(st int32, b byte) int32 {
	d.mu.Lock()
	defer d.mu.Unlock()
	slot := &d.trans[int(st)<<7|int(b)]
	if t := slot.Load(); t != dfaUnknown {
		return t
	}
	d.buf.clear()
	r := rune(b)
	for _, pc := range d.sets[st] {
		in := &d.prog.Inst[pc]
		var ok bool
		switch in.Op {
		case syntax.InstRune:
			ok = in.MatchRune(r)
		case syntax.InstRune1:
			ok = r == in.Rune[0]
		case syntax.InstRuneAny:
			ok = true
		case syntax.InstRuneAnyNotNL:
			ok = r != '\n'
		}
		if ok {
			d.closure(in.Out, 0)
		}
	}
	d.closure(uint32(d.prog.Start), 0) // unanchored: a match may start here
	t := int32(dfaMatched)
	if !d.buf.has(d.prog, syntax.InstMatch) {
		t = dfaGiveUp
		if next := d.intern(); next >= 0 {
			t = next + 1
		}
	}
	slot.Store(t)
	return t
}

// closure adds pc and every instruction reachable from it without
// consuming input under the empty-width flags; an assertion the flags do
// not satisfy stays in the set, to be resolved at the line's end.
func (d *lineDFA) closure(pc uint32, flags syntax.EmptyOp) {
	if d.buf.contains(pc) {
		return
	}
	d.buf.add(pc)
	in := &d.prog.Inst[pc]
	switch in.Op {
	case syntax.InstAlt, syntax.InstAltMatch:
		d.closure(in.Out, flags)
		d.closure(in.Arg, flags)
	case syntax.InstNop, syntax.InstCapture:
		d.closure(in.Out, flags)
	case syntax.InstEmptyWidth:
		if syntax.EmptyOp(in.Arg)&^flags == 0 {
			d.closure(in.Out, flags)
		}
	}
}

// lookup returns the state of the set in d.buf (and the set), or -1.
func (d *lineDFA) lookup() (int32, []uint32) {
	set := d.buf.sorted(d.prog)
	if st, ok := d.index[keyOf(set)]; ok {
		return st, set
	}
	return -1, set
}

// intern returns the state of the set in d.buf, creating it (and its
// acceptEnd) if new; past the state budget it returns -1 for a new set.
func (d *lineDFA) intern() int32 {
	st, set := d.lookup()
	if st >= 0 {
		return st
	}
	if len(d.sets) >= maxDFAStates {
		return -1
	}
	st = int32(len(d.sets))
	d.sets = append(d.sets, set)
	d.index[keyOf(set)] = st
	// At the end of a line the end assertions hold.
	d.buf.clear()
	for _, pc := range set {
		d.closure(pc, flagsEnd)
	}
	d.acceptEnd[st] = d.buf.has(d.prog, syntax.InstMatch)
	return st
}

// sparse is a set of instruction indexes with O(1) clear.
type sparse struct {
	dense  []uint32
	sparse []uint32
}

func newSparse(n int) sparse {
	return sparse{dense: make([]uint32, 0, n), sparse: make([]uint32, n)}
}

func (s *sparse) clear() { s.dense = s.dense[:0] }

func (s *sparse) contains(pc uint32) bool {
	i := s.sparse[pc]
	return int(i) < len(s.dense) && s.dense[i] == pc
}

func (s *sparse) add(pc uint32) {
	s.sparse[pc] = uint32(len(s.dense))
	s.dense = append(s.dense, pc)
}

// has reports whether the set holds an instruction of op op.
func (s *sparse) has(p *syntax.Prog, op syntax.InstOp) bool {
	for _, pc := range s.dense {
		if p.Inst[pc].Op == op {
			return true
		}
	}
	return false
}

// sorted returns, in order, the set's instructions that make up a state:
// those that consume a byte, match, or wait on an assertion. The others
// (alternations, captures, no-ops) only lead to instructions already in the
// set.
func (s *sparse) sorted(p *syntax.Prog) []uint32 {
	out := make([]uint32, 0, len(s.dense))
	for _, pc := range s.dense {
		switch p.Inst[pc].Op {
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL,
			syntax.InstMatch, syntax.InstEmptyWidth:
			out = append(out, pc)
		}
	}
	slices.Sort(out)
	return out
}

// keyOf returns a state's instruction set as a map key.
func keyOf(set []uint32) string {
	b := make([]byte, 0, 4*len(set))
	for _, pc := range set {
		b = binary.LittleEndian.AppendUint32(b, pc)
	}
	return string(b)
}
