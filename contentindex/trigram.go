package contentindex

import "slices"

// foldTable maps a byte to its folded form: ASCII upper-case letters to
// lower case, every other byte to itself. Trigrams are stored as they are;
// the byte following a trigram is recorded folded (see followBit).
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

// A term is a trigram (low 24 bits) and, in the top byte, 0 or 1 + the
// follower bit (see followBit) of a byte that must follow the trigram: a
// term with a follower asks for a 4-gram, approximately.
const (
	triMask     = 1<<24 - 1
	followShift = 24
)

// followBit maps a folded byte to one of eight bits: a document records, per
// trigram, the bits of the bytes that follow it somewhere in the document,
// folded, so one bit serves both cases of a letter.
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

// termAllows reports whether a document whose follower mask for the term's
// trigram is mask may hold the term.
func termAllows(t uint32, mask uint8) bool {
	f := t >> followShift
	return f == 0 || mask&(1<<(f-1)) != 0
}

// triSet gathers the distinct trigrams of one file and, per trigram, the
// follower bits of the bytes after it: a 2 MiB bitmap and a 16 MiB mask
// table over all 2^24 trigrams (touched only where text has trigrams), plus
// the list of trigrams seen, so clearing costs what filling did.
type triSet struct {
	bits  []uint64
	masks []uint8
	list  []uint32
	// t holds the last three folded bytes added and seen how many bytes
	// (at most 3) were added since Reset, so a file may come in pieces.
	t    uint32
	seen int
}

func newTriSet() *triSet {
	return &triSet{bits: make([]uint64, 1<<24/64), masks: make([]uint8, 1<<24)}
}

// Add adds the trigrams of the next piece of the file.
func (s *triSet) Add(p []byte) {
	t, seen := s.t, s.seen
	bits, masks := s.bits, s.masks
	for _, c := range p {
		if seen == 3 {
			masks[t] |= 1 << followBit[foldTable[c]]
		}
		t = (t<<8 | uint32(c)) & triMask
		if seen < 3 {
			seen++
			if seen < 3 {
				continue
			}
		}
		w, b := t>>6, uint64(1)<<(t&63)
		if bits[w]&b == 0 {
			bits[w] |= b
			s.list = append(s.list, t)
		}
	}
	s.t, s.seen = t, seen
}

// Sorted returns the distinct trigrams added since the last Reset, in
// ascending order. The slice is valid until the next Reset.
func (s *triSet) Sorted() []uint32 {
	slices.Sort(s.list)
	return s.list
}

// Mask returns the follower bits of trigram t.
func (s *triSet) Mask(t uint32) uint8 { return s.masks[t] }

// Reset empties the set for the next file.
func (s *triSet) Reset() {
	for _, t := range s.list {
		s.bits[t>>6] = 0
		s.masks[t] = 0
	}
	s.list = s.list[:0]
	s.t, s.seen = 0, 0
}
