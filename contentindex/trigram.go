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
// follower bit (see followBit) of a byte that must follow the trigram (a
// term with a follower asks for a 4-gram, approximately); in bits 32-39,
// the case bits (see caseMaskShift) of which one must be in the mask, or 0 for
// any.
const (
	triMask     = 1<<24 - 1
	followShift = 24
	followMask  = 0xF
	caseShift   = 32
)

// A mask is what a document records of one folded trigram in one byte: in
// its low followBuckets bits the follower bits of the bytes that follow the
// trigram somewhere in the document (folded, so one bit serves both cases
// of a letter); in its top two bits the cases the trigram has somewhere in
// the document: caseLower (no upper-case letter), caseUpper (one or more).
// A case-sensitive query asks for the case bits its text allows, a
// case-insensitive one for none, and both read the same one list per
// trigram. (Measured on the Go tree: six follower bits and two case bits
// keep case-sensitive queries as selective as exact-case trigrams with
// eight follower bits did; three case bits and five follower bits do not.)
const (
	followBuckets = 6
	caseMaskShift = followBuckets
	caseLower     = 1 << 0
	caseUpper     = 1 << 1
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

// caseTable is caseOf shifted into a mask, by upper<<3 | letters.
var caseTable = func() (t [64]uint8) {
	for i := range uint32(64) {
		t[i] = caseOf(i&7, i>>3) << caseMaskShift
	}
	return t
}()

// letterUpper tells, per byte, whether it is an ASCII letter (bit 0) and
// whether it is an upper-case one (bit 1).
var letterUpper = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = 1
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = 3
	}
	return t
}()

// followBit maps a folded byte to one of followBuckets bits: a document
// records, per trigram, the bits of the bytes that follow it somewhere in
// the document, folded, so one bit serves both cases of a letter.
// Bytes frequent in source text are dealt round-robin by frequency, so the
// commonest ones do not share a bit; the rest are hashed.
var followBit = func() (t [256]uint8) {
	for i := range t {
		t[i] = uint8(int(uint8(i*0x9d)) * followBuckets >> 8)
	}
	for i, c := range []byte("etaoinsrlcdupm_hfgbyvkwxqjz0123456789 ().,;:*/-=\n\t") {
		t[c] = uint8(i % followBuckets)
	}
	return t
}()

// termAllows reports whether a document whose mask for the term's trigram
// is mask may hold the term.
func termAllows(t uint64, mask uint8) bool {
	f := t >> followShift & followMask
	cases := uint8(t >> caseShift)
	return (f == 0 || mask&(1<<(f-1)) != 0) && (cases == 0 || mask>>caseMaskShift&cases != 0)
}

// triSet gathers the distinct folded trigrams of one file and, per
// trigram, its mask: a 2 MiB bitmap and a 16 MiB mask table over all 2^24
// trigrams (touched only where text has trigrams), plus the list of
// trigrams seen, so clearing costs what filling did.
type triSet struct {
	bits  []uint64
	masks []uint8
	list  []uint32
	// t holds the last three folded bytes added, lu which of them are
	// letters (bits 0-2) and upper case (bits 3-5), and seen how many bytes
	// (at most 3) were added since Reset, so a file may come in pieces.
	t, lu uint32
	seen  int
}

func newTriSet() *triSet {
	return &triSet{bits: make([]uint64, 1<<24/64), masks: make([]uint8, 1<<24)}
}

// Add adds the trigrams of the next piece of the file.
func (s *triSet) Add(p []byte) {
	t, lu, seen := s.t, s.lu, s.seen
	bits, masks := s.bits, s.masks
	for _, c := range p {
		f := foldTable[c]
		if seen == 3 {
			masks[t] |= 1 << followBit[f]
		}
		t = (t<<8 | uint32(f)) & triMask
		k := uint32(letterUpper[c])
		lu = (lu<<1)&0b110110 | k&1 | (k>>1)<<3
		if seen < 3 {
			seen++
			if seen < 3 {
				continue
			}
		}
		masks[t] |= caseTable[lu]
		w, b := t>>6, uint64(1)<<(t&63)
		if bits[w]&b == 0 {
			bits[w] |= b
			s.list = append(s.list, t)
		}
	}
	s.t, s.lu, s.seen = t, lu, seen
}

// Sorted returns the distinct trigrams added since the last Reset, in
// ascending order. The slice is valid until the next Reset.
func (s *triSet) Sorted() []uint32 {
	slices.Sort(s.list)
	return s.list
}

// Mask returns the mask of trigram t.
func (s *triSet) Mask(t uint32) uint8 { return s.masks[t] }

// Reset empties the set for the next file.
func (s *triSet) Reset() {
	for _, t := range s.list {
		s.bits[t>>6] = 0
		s.masks[t] = 0
	}
	s.list = s.list[:0]
	s.t, s.lu, s.seen = 0, 0, 0
}
