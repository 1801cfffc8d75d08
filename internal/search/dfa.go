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
// empty-width assertion other than a word boundary (\b, \B) can hold (a line
// holds no "\n").
const (
	flagsBegin = syntax.EmptyBeginLine | syntax.EmptyBeginText
	flagsEnd   = syntax.EmptyEndLine | syntax.EmptyEndText
)

// A state's context bits, part of its identity: where the position before
// its next byte stands.
const (
	ctxStart    = 1 << iota // the line's start: ^ and \A hold
	ctxPrevWord             // the byte before is a word byte (program with \b or \B only)
)

// boundary returns the word-boundary assertion that holds between a byte
// of wordness before and one of wordness after (regexp's ASCII \b).
func boundary(before, after bool) syntax.EmptyOp {
	if before != after {
		return syntax.EmptyWordBoundary
	}
	return syntax.EmptyNoWordBoundary
}

// lineDFA answers "does the program match somewhere in this line?" for lines
// of ASCII bytes, exactly as regexp's Match on the line would, by a lazily
// built deterministic automaton over the program's instruction sets (an
// unanchored search: the start is re-added at every position). An
// assertion a state cannot decide yet (a word boundary needs the next
// byte, $ the line's end) stays in its set and is resolved when the next
// byte or the end is known; a state knows whether it stands at the line's
// start and, for a program with word boundaries, whether the byte before
// was a word byte. It is safe for concurrent use: states are built under
// mu and published through the atomic transition table; a state's fields
// are written before the transition naming it.
type lineDFA struct {
	prog *syntax.Prog
	word bool // the program has \b or \B

	mu    sync.Mutex
	sets  [][]uint32       // instruction set of each state (under mu)
	ctx   []uint8          // context bits of each state (under mu)
	index map[string]int32 // set and context key → state (under mu)
	buf   sparse           // scratch (under mu)
	cur   sparse           // scratch: a state's set resolved before a byte (under mu)

	trans      *[maxDFAStates << 7]atomic.Int32 // state<<7 | byte → entry
	acceptEnd  [maxDFAStates]bool               // a match ends at the end of a line in this state
	start      int32                            // state at position 0 of a non-empty line
	startMatch bool                             // the empty match at position 0 holds: every non-empty line matches
	emptyLine  bool                             // an empty line matches
}

// newLineDFA returns the DFA of prog, or nil when prog is too long.
func newLineDFA(prog *syntax.Prog) *lineDFA {
	if len(prog.Inst) > maxDFAProg {
		return nil
	}
	d := &lineDFA{
		prog:  prog,
		index: map[string]int32{},
		buf:   newSparse(len(prog.Inst)),
		cur:   newSparse(len(prog.Inst)),
		trans: new([maxDFAStates << 7]atomic.Int32),
	}
	for _, in := range prog.Inst {
		if in.Op == syntax.InstEmptyWidth && syntax.EmptyOp(in.Arg)&(syntax.EmptyWordBoundary|syntax.EmptyNoWordBoundary) != 0 {
			d.word = true
		}
	}
	d.buf.clear()
	d.closure(&d.buf, uint32(prog.Start), flagsBegin|flagsEnd|syntax.EmptyNoWordBoundary)
	d.emptyLine = d.buf.has(d.prog, syntax.InstMatch)
	d.buf.clear()
	d.closure(&d.buf, uint32(prog.Start), flagsBegin)
	d.startMatch = d.buf.has(d.prog, syntax.InstMatch)
	d.start = d.intern(ctxStart)
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
	t := d.step(st, b)
	slot.Store(t)
	return t
}

// step computes the transition of state st on byte b: the assertions the
// position before b decides are resolved, a match ending there ends the
// search, else b is consumed.
func (d *lineDFA) step(st int32, b byte) int32 {
	c := d.ctx[st]
	var flags syntax.EmptyOp
	if c&ctxStart != 0 {
		flags = flagsBegin
	}
	if d.word {
		flags |= boundary(c&ctxPrevWord != 0, syntax.IsWordChar(rune(b)))
	}
	d.cur.clear()
	for _, pc := range d.sets[st] {
		d.closure(&d.cur, pc, flags)
	}
	if d.cur.has(d.prog, syntax.InstMatch) {
		return dfaMatched
	}
	d.buf.clear()
	r := rune(b)
	for _, pc := range d.cur.dense {
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
			d.closure(&d.buf, in.Out, 0)
		}
	}
	d.closure(&d.buf, uint32(d.prog.Start), 0) // unanchored: a match may start here
	if d.buf.has(d.prog, syntax.InstMatch) {
		return dfaMatched
	}
	var next uint8
	if d.word && syntax.IsWordChar(r) {
		next = ctxPrevWord
	}
	if st := d.intern(next); st >= 0 {
		return st + 1
	}
	return dfaGiveUp
}

// closure adds pc and every instruction reachable from it without
// consuming input under the empty-width flags to s; an assertion the flags
// do not satisfy stays in s, to be resolved with the next byte or at the
// line's end.
func (d *lineDFA) closure(s *sparse, pc uint32, flags syntax.EmptyOp) {
	if s.contains(pc) {
		return
	}
	s.add(pc)
	in := &d.prog.Inst[pc]
	switch in.Op {
	case syntax.InstAlt, syntax.InstAltMatch:
		d.closure(s, in.Out, flags)
		d.closure(s, in.Arg, flags)
	case syntax.InstNop, syntax.InstCapture:
		d.closure(s, in.Out, flags)
	case syntax.InstEmptyWidth:
		if syntax.EmptyOp(in.Arg)&^flags == 0 {
			d.closure(s, in.Out, flags)
		}
	}
}

// intern returns the state of the set in d.buf with context bits c,
// creating it (and its acceptEnd) if new; past the state budget it returns
// -1 for a new state.
func (d *lineDFA) intern(c uint8) int32 {
	set := d.buf.sorted(d.prog)
	key := keyOf(set, c)
	if st, ok := d.index[key]; ok {
		return st
	}
	if len(d.sets) >= maxDFAStates {
		return -1
	}
	st := int32(len(d.sets))
	d.sets = append(d.sets, set)
	d.ctx = append(d.ctx, c)
	d.index[key] = st
	// At the end of a line the end assertions hold, and a word boundary
	// holds after a word byte (a non-word "byte" follows).
	flags := flagsEnd
	if c&ctxStart != 0 {
		flags |= flagsBegin
	}
	if d.word {
		flags |= boundary(c&ctxPrevWord != 0, false)
	}
	d.buf.clear()
	for _, pc := range set {
		d.closure(&d.buf, pc, flags)
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

// keyOf returns a state's instruction set and context bits as a map key.
func keyOf(set []uint32, c uint8) string {
	b := make([]byte, 1, 1+4*len(set))
	b[0] = c
	for _, pc := range set {
		b = binary.LittleEndian.AppendUint32(b, pc)
	}
	return string(b)
}
