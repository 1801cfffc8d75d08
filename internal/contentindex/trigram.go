package contentindex

import "slices"

// foldTable maps a byte to its folded form: ASCII upper-case letters to
// lower case, every other byte to itself. Trigrams are stored folded; the
// cases a trigram has in a document, and the bytes that follow it, are
// recorded in its mask (see caseMaskShift).
var foldTable = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = byte(c - 'A' + 'a')
	}
	return t
}()

// pack returns the trigram of three bytes.
func pack(a, b, c byte) uint32 {
	return uint32(a)<<16 | uint32(b)<<8 | uint32(c)
}

// A term is a folded trigram (low 24 bits); in bits 24-27, 0 or 1 + the
// follower bit (see followBit) of a byte that must follow the trigram; in
// bits 28-31, 0 or 1 + the bit (see follow3Bit) of three bytes that must
// follow it (a term with followers asks for a 4-gram or a 6-gram,
// approximately); in bits 32-39, the cases (caseLower, caseUpper) of the
// occurrences the term may be, or 0 for any (see termAllows).
const (
	triMask      = 1<<24 - 1
	followShift  = 24
	follow3Shift = 28
	followMask   = 0xF
	caseShift    = 32
)

// A mask is what a document records of one folded trigram: in its low byte
// the follower bits of the occurrences with no upper-case letter
// (caseLower), in its high byte those of the occurrences with one or more
// (caseUpper). Each occurrence sets two follower bits of its half, as a
// Bloom filter of two hashes does: followBit of the byte after it and
// follow3Bit of the three bytes after it. Followers are folded, so one bit
// serves both cases of a letter; the end of the text follows as "\n" does,
// so every occurrence sets a bit of its half. A case-sensitive query asks
// the halves its text's case allows, a case-insensitive one either, and both
// read the same one list per trigram. The three-byte follower tells
// pm_resume from a text holding pm_restore and _resume, which share every
// 4-gram and 5-gram of it.
const (
	caseLower     = 1 << 0
	caseUpper     = 1 << 1
	caseMaskShift = 8 // the bit of follower bucket b after a caseUpper occurrence is b+caseMaskShift
)

// caseOf returns the case bit of a trigram whose letters are at the
// positions of letters and whose upper-case bytes are at those of upper
// (bit 2 for the first byte, 0 for the third).
func caseOf(letters, upper uint32) uint8 {
	if upper&letters == 0 {
		return caseLower
	}
	return caseUpper
}

// hasUpper tells, per byte, whether it is an upper-case ASCII letter.
var hasUpper = func() (t [256]uint8) {
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = 1
	}
	return t
}()

// followBit maps a folded byte to one of eight bits: a document records,
// per trigram, the bits of the bytes that follow it somewhere in the
// document, folded, so one bit serves both cases of a letter.
// Bytes frequent in source text are dealt round-robin by frequency, so the
// commonest ones do not share a bit; the rest are hashed.
var followBit = func() (t [256]uint8) {
	for i := range t {
		t[i] = uint8(i*0x9d) >> 5
	}
	for i, c := range []byte("etaoinsrlcdupm_hfgbyvkwxqjz0123456789 ().,;:*/-=\n\t") {
		t[c] = uint8(i % 8)
	}
	return t
}()

// follow3Bit maps the three folded bytes that follow a trigram (packed as
// pack does) to one of eight bits.
func follow3Bit(next uint32) uint8 { return uint8((next * 0x9E3779B1) >> 29) }

// termAllows reports whether a document whose mask for the term's trigram
// is mask may hold the term: one of the halves the term allows has every
// follower bit it asks for (and, when it asks none, any bit). A term that
// asks nothing of the mask is held by every document holding its trigram.
func termAllows(t uint64, mask uint16) bool { return newTermTest(t).allows(mask) }

// termTest is termAllows for one term, its halves and follower bits
// worked out once, for the loops that test a mask per document.
type termTest struct {
	any          bool  // the term asks nothing of the mask
	halves, want uint8 // the halves it allows (caseLower, caseUpper), the follower bits it asks
}

func newTermTest(t uint64) termTest {
	if t&^triMask == 0 {
		return termTest{any: true}
	}
	tt := termTest{halves: uint8(t >> caseShift)}
	if tt.halves == 0 {
		tt.halves = caseLower | caseUpper
	}
	if f := t >> followShift & followMask; f != 0 {
		tt.want |= 1 << (f - 1)
	}
	if f := t >> follow3Shift & followMask; f != 0 {
		tt.want |= 1 << (f - 1)
	}
	return tt
}

// allows is termAllows(t, mask) for the term tt was made of.
func (tt termTest) allows(mask uint16) bool {
	if tt.any {
		return true
	}
	lo, hi := uint8(mask), uint8(mask>>caseMaskShift)
	return tt.halves&caseLower != 0 && lo != 0 && lo&tt.want == tt.want ||
		tt.halves&caseUpper != 0 && hi != 0 && hi&tt.want == tt.want
}

// triSet gathers the distinct folded trigrams of one file and, per
// trigram, its mask: a 2 MiB bitmap and a 32 MiB mask table over all 2^24
// trigrams (touched only where text has trigrams), plus the list of
// trigrams seen, so clearing costs what filling did.
type triSet struct {
	bits  []uint64
	masks []uint16
	list  []uint32
	// win holds the last six folded bytes added (the last in the low byte),
	// up which of them were upper-case letters (bit 0 the last), and seen
	// how many bytes (at most 6) were added since Reset, so a file may come
	// in pieces; ended is set once the end of the text has been recorded.
	win   uint64
	up    uint32
	seen  int
	ended bool
}

func newTriSet() *triSet {
	return &triSet{bits: make([]uint64, 1<<24/64), masks: make([]uint16, 1<<24)}
}

// Add adds the trigrams of the next piece of the file.
func (s *triSet) Add(p []byte) {
	for len(p) > 0 && s.seen < 6 {
		s.add1(p[0])
		p = p[1:]
	}
	win, up := s.win, s.up
	bits, masks := s.bits, s.masks
	for _, c := range p {
		f := foldTable[c]
		// The trigram ending at the byte before c is followed by c.
		masks[uint32(win)&triMask] |= halfBit(up&7, followBit[f])
		win = (win<<8 | uint64(f)) & (1<<48 - 1)
		up = (up<<1 | uint32(hasUpper[c])) & 63
		// The trigram ending three bytes before c is followed by the three
		// bytes ending at c.
		masks[uint32(win>>24)&triMask] |= halfBit(up>>3, follow3Bit(uint32(win)&triMask))
		t := uint32(win) & triMask
		if w, b := t>>6, uint64(1)<<(t&63); bits[w]&b == 0 {
			bits[w] |= b
			s.list = append(s.list, t)
		}
	}
	s.win, s.up = win, up
}

// add1 adds one of the first six bytes of the text, which do not yet
// follow three trigrams.
func (s *triSet) add1(c byte) {
	f := foldTable[c]
	if s.seen >= 3 {
		s.masks[uint32(s.win)&triMask] |= halfBit(s.up&7, followBit[f])
	}
	s.win = (s.win<<8 | uint64(f)) & (1<<48 - 1)
	s.up = (s.up<<1 | uint32(hasUpper[c])) & 63
	s.seen++
	if s.seen < 3 {
		return
	}
	if s.seen == 6 {
		s.masks[uint32(s.win>>24)&triMask] |= halfBit(s.up>>3, follow3Bit(uint32(s.win)&triMask))
	}
	if t := uint32(s.win) & triMask; s.bits[t>>6]&(1<<(t&63)) == 0 {
		s.bits[t>>6] |= 1 << (t & 63)
		s.list = append(s.list, t)
	}
}

// halfBit returns the mask bit of follower bucket b after an occurrence
// whose upper-case letters are up (three bits).
func halfBit(up uint32, b uint8) uint16 {
	return uint16(1) << (b + halfShift[up&7])
}

// halfShift is the shift of the half of an occurrence whose upper-case
// letters are the index: 0, or caseMaskShift for any.
var halfShift = [8]uint8{0, caseMaskShift, caseMaskShift, caseMaskShift, caseMaskShift, caseMaskShift, caseMaskShift, caseMaskShift}

// Sorted ends the text (its last trigram is followed as by "\n") and
// returns the distinct trigrams added since the last Reset, in ascending
// order. The slice is valid until the next Reset.
func (s *triSet) Sorted() []uint32 {
	if s.seen >= 3 && !s.ended {
		s.masks[uint32(s.win)&triMask] |= halfBit(s.up&7, followBit['\n'])
		s.ended = true
	}
	slices.Sort(s.list)
	return s.list
}

// Mask returns the mask of trigram t.
func (s *triSet) Mask(t uint32) uint16 { return s.masks[t] }

// Reset empties the set for the next file.
func (s *triSet) Reset() {
	for _, t := range s.list {
		s.bits[t>>6] = 0
		s.masks[t] = 0
	}
	s.list = s.list[:0]
	s.win, s.up, s.seen, s.ended = 0, 0, 0, false
}
