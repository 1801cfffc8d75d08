package contentindex

import "slices"

// foldTable maps a byte to its folded form: ASCII upper-case letters to
// lower case, every other byte to itself. The index stores folded trigrams,
// so a case-insensitive ASCII query costs what a case-sensitive one does.
var foldTable = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = byte(c - 'A' + 'a')
	}
	return t
}()

// pack returns the trigram of three folded bytes.
func pack(a, b, c byte) uint32 {
	return uint32(foldTable[a])<<16 | uint32(foldTable[b])<<8 | uint32(foldTable[c])
}

// foldString returns s with ASCII letters lower-cased.
func foldString(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = foldTable[c]
	}
	return string(b)
}

// triSet gathers the distinct trigrams of one file: a 2 MiB bitmap over all
// 2^24 trigrams plus the list of set bits, so clearing costs what filling did.
type triSet struct {
	bits []uint64
	list []uint32
	// carry holds the last two folded bytes of the previous Add, and n how
	// many of them are valid, so a file may be added in pieces.
	carry [2]byte
	n     int
}

func newTriSet() *triSet { return &triSet{bits: make([]uint64, 1<<24/64)} }

// Add adds the trigrams of the next piece of the file.
func (s *triSet) Add(p []byte) {
	if len(p) == 0 {
		return
	}
	var t uint32
	switch s.n {
	case 0:
	case 1:
		t = uint32(s.carry[1])
	default:
		t = uint32(s.carry[0])<<8 | uint32(s.carry[1])
	}
	have := s.n
	bits := s.bits
	for _, c := range p {
		t = (t<<8 | uint32(foldTable[c])) & (1<<24 - 1)
		if have < 2 {
			have++
			continue
		}
		w, b := t>>6, uint64(1)<<(t&63)
		if bits[w]&b == 0 {
			bits[w] |= b
			s.list = append(s.list, t)
		}
	}
	s.n = min(have, 2)
	s.carry = [2]byte{byte(t >> 8), byte(t)}
}

// Sorted returns the distinct trigrams added since the last Reset, in
// ascending order. The slice is valid until the next Reset.
func (s *triSet) Sorted() []uint32 {
	slices.Sort(s.list)
	return s.list
}

// Reset empties the set for the next file.
func (s *triSet) Reset() {
	for _, t := range s.list {
		s.bits[t>>6] = 0
	}
	s.list = s.list[:0]
	s.n = 0
}
