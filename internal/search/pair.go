package search

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// bytePair finds a literal by two of its bytes at once and confirms each
// position both bytes agree on by comparing the whole literal. Folding ASCII
// case, one pass replaces the two bytes.IndexByte streams (lower and upper
// case) of the rare byte, whose frequent hits (a common letter in either
// case) cost more than the scan; exact, it replaces the one stream of the
// rare byte, whose hits are fewer but still each a return from IndexByte
// and a compare. A letter compared folding is compared with the text byte
// OR 0x20, which maps exactly its two cases (and nothing else) to its lower
// case; any other byte, and every byte of an exact pair, is compared as it
// is (OR 0).
//
// With AVX2 (pairAsm) the scan tests 32 positions per step in assembly
// (pairBlock); otherwise, and for the last positions, eight per step in Go
// (SWAR: SIMD within a 64-bit register), 32 per loop iteration.
type bytePair struct {
	lit   []byte
	fold  bool   // compare folding ASCII case
	a, b  int    // indexes in lit of the two bytes tested, a < b
	orA   uint64 // 0x20 in every lane when fold and lit[a] is a letter, else 0
	orB   uint64
	wantA uint64 // lit[a] (lower-cased when fold) in every lane
	wantB uint64
}

const (
	lanes = 0x0101010101010101
	high  = 0x8080808080808080
)

// newBytePair returns the pair search of lit (compared folding ASCII case
// when fold), testing the bytes at indexes i and j (i ≠ j).
func newBytePair(lit []byte, i, j int, fold bool) *bytePair {
	if i > j {
		i, j = j, i
	}
	p := &bytePair{lit: lit, fold: fold, a: i, b: j}
	p.orA, p.wantA = pairLane(lit[i], fold)
	p.orB, p.wantB = pairLane(lit[j], fold)
	return p
}

// pairLane returns the OR mask and the wanted value, in every lane, of a
// compare with c (folded when fold).
func pairLane(c byte, fold bool) (or, want uint64) {
	if fold && lower(c) != upper(c) {
		return 0x20 * lanes, uint64(lower(c)) * lanes
	}
	return 0, uint64(c) * lanes
}

// equal reports whether s (as long as the literal) is the literal.
func (p *bytePair) equal(s []byte) bool {
	if p.fold {
		return foldEqual(s, p.lit)
	}
	return bytes.Equal(s, p.lit)
}

// zeroLanes returns 0x80 in every lane of v that is zero, and maybe in a
// lane above a zero one that holds 1 (the borrow of the subtraction): it
// never misses a zero lane, and a lane it flags wrongly is only a position
// index confirms and rejects.
func zeroLanes(v uint64) uint64 {
	return (v - lanes) &^ v & high
}

// index returns the offset of the first occurrence of the literal in buf at
// or after pos, or -1.
func (p *bytePair) index(buf []byte, pos int) int { return p.scan(buf, pos, pairAsm) }

// scan is index, scanning with pairBlock when asm (which requires pairAsm)
// and in Go only otherwise: tests run both on the same inputs.
func (p *bytePair) scan(buf []byte, pos int, asm bool) int {
	lit, a, d := p.lit, p.a, p.b-p.a
	last := len(buf) - len(lit) + a // the last position lit[a] may be at
	orA, orB, wantA, wantB := p.orA, p.orB, p.wantA, p.wantB
	i := pos + a
	if asm && last-i >= 31 {
		// Positions up to last only: lit[b] of the last is hay's last byte.
		hay := buf[:last+d+1]
		for {
			j, mask := pairBlock(hay, i, d, byte(orA), byte(orB), byte(wantA), byte(wantB))
			i = j
			if mask == 0 {
				break // fewer than 32 positions left: the loops below
			}
			for ; mask != 0; mask &= mask - 1 {
				s := i + bits.TrailingZeros32(mask) - a
				if p.equal(buf[s : s+len(lit)]) {
					return s
				}
			}
			i += 32
		}
	}
	// 32 positions per step: one branch for four words when none of
	// them has a candidate (the common case), and the two windows sliced
	// once so that the eight loads need no bounds checks.
	for ; i+31 <= last; i += 32 {
		u, v := buf[i:i+32], buf[i+d:i+d+32]
		// A lane of (x^wantA | y^wantB) is zero exactly when both bytes
		// are wanted: one zero-lane test per word, not one per byte.
		m0 := zeroLanes((binary.LittleEndian.Uint64(u[0:8]) | orA ^ wantA) | (binary.LittleEndian.Uint64(v[0:8]) | orB ^ wantB))
		m1 := zeroLanes((binary.LittleEndian.Uint64(u[8:16]) | orA ^ wantA) | (binary.LittleEndian.Uint64(v[8:16]) | orB ^ wantB))
		m2 := zeroLanes((binary.LittleEndian.Uint64(u[16:24]) | orA ^ wantA) | (binary.LittleEndian.Uint64(v[16:24]) | orB ^ wantB))
		m3 := zeroLanes((binary.LittleEndian.Uint64(u[24:32]) | orA ^ wantA) | (binary.LittleEndian.Uint64(v[24:32]) | orB ^ wantB))
		if m0|m1|m2|m3 == 0 {
			continue
		}
		for k, m := range [4]uint64{m0, m1, m2, m3} {
			for m != 0 {
				s := i + 8*k + bits.TrailingZeros64(m)/8 - a
				if p.equal(buf[s : s+len(lit)]) {
					return s
				}
				m &= m - 1
			}
		}
	}
	for ; i+7 <= last; i += 8 {
		x := binary.LittleEndian.Uint64(buf[i:i+8]) | orA
		y := binary.LittleEndian.Uint64(buf[i+d:i+d+8]) | orB
		m := zeroLanes((x ^ wantA) | (y ^ wantB))
		for m != 0 {
			s := i + bits.TrailingZeros64(m)/8 - a
			if p.equal(buf[s : s+len(lit)]) {
				return s
			}
			m &= m - 1
		}
	}
	for ; i <= last; i++ {
		s := i - a
		if p.equal(buf[s : s+len(lit)]) {
			return s
		}
	}
	return -1
}
