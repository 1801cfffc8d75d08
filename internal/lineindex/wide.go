package lineindex

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"

	"github.com/toolrpc/toolrpc/limits"
)

// Form is how a file's lines end: at "\n" bytes (Bytes: UTF-8 and every
// ASCII-compatible encoding), or at the two-byte code unit U+000A of UTF-16
// in either byte order, aligned to the file's start (SPEC §4.1).
type Form uint8

// The forms of line ending.
const (
	Bytes Form = iota
	UTF16LE
	UTF16BE
)

// nextUnit returns the index in p of the first newline unit at or after
// start (p starts at an even file offset, start is even), or -1.
func (form Form) nextUnit(p []byte, start int) int {
	for start < len(p) {
		i := bytes.IndexByte(p[start:], '\n')
		if i < 0 {
			return -1
		}
		k := start + i
		switch {
		case form == UTF16LE && k%2 == 0 && k+1 < len(p) && p[k+1] == 0:
			return k
		case form == UTF16BE && k%2 == 1 && p[k-1] == 0:
			return k - 1
		}
		start = k + 1
	}
	return -1
}

// feedWide is feed for the UTF-16 forms: blk starts at an even offset and
// only its last block may have an odd length.
func (b *builder) feedWide(p []byte) {
	for len(p) > 0 {
		blk := p[:min(len(p), blockBytes)]
		p = p[len(blk):]
		b.crc = crc32Update(b.crc, blk)
		if c := b.form.countUnits(blk); c > 0 {
			b.newlines += int64(c)
			last := b.form.lastUnit(blk)
			b.lastEnd = b.off + int64(last) + 2
			m := Mark{Line: b.newlines + 1, Off: b.lastEnd}
			prev := b.marks[len(b.marks)-1]
			if m.Line-prev.Line >= b.markLines || m.Off-prev.Off >= b.markBytes {
				b.addMark(m)
			}
		}
		b.off += int64(len(blk))
	}
}

// Word constants of countUnits: the newline unit in each of four lanes, as
// read little-endian from UTF-16LE and UTF-16BE bytes, and the lanes' bits.
const (
	unitLE   = 0x000a000a000a000a
	unitBE   = 0x0a000a000a000a00
	lanesLow = 0x7fff7fff7fff7fff
	lanesTop = 0x8000800080008000
)

// countUnits counts the newline units of blk (which starts at an even file
// offset) four at a time: a lane of v^unit is zero exactly when its unit is
// the newline, and ((x&low)+low)|x has a lane's top bit clear exactly when
// the lane is zero.
func (form Form) countUnits(blk []byte) int {
	if form.latin1Only(blk) {
		// Every unit is U+0000..U+00FF: each 0x0a byte is a newline unit.
		return bytes.Count(blk, []byte{'\n'})
	}
	want := uint64(unitLE)
	if form == UTF16BE {
		want = unitBE
	}
	n, i := 0, 0
	for ; i+32 <= len(blk); i += 32 {
		w := blk[i : i+32 : i+32]
		x0 := binary.LittleEndian.Uint64(w) ^ want
		x1 := binary.LittleEndian.Uint64(w[8:]) ^ want
		x2 := binary.LittleEndian.Uint64(w[16:]) ^ want
		x3 := binary.LittleEndian.Uint64(w[24:]) ^ want
		z0 := ^(((x0 & lanesLow) + lanesLow) | x0) & lanesTop
		z1 := ^(((x1 & lanesLow) + lanesLow) | x1) & lanesTop
		z2 := ^(((x2 & lanesLow) + lanesLow) | x2) & lanesTop
		z3 := ^(((x3 & lanesLow) + lanesLow) | x3) & lanesTop
		// Each z has at most one bit in every 16: shifted, four fit in one word.
		n += bits.OnesCount64(z0 | z1>>1 | z2>>2 | z3>>3)
	}
	for ; i+8 <= len(blk); i += 8 {
		x := binary.LittleEndian.Uint64(blk[i:]) ^ want
		t := ((x & lanesLow) + lanesLow) | x
		n += bits.OnesCount64(^t & lanesTop)
	}
	for ; i+1 < len(blk); i += 2 {
		if form == UTF16LE && blk[i] == '\n' && blk[i+1] == 0 || form == UTF16BE && blk[i] == 0 && blk[i+1] == '\n' {
			n++
		}
	}
	return n
}

// latin1Only reports whether every whole unit of blk has a zero high byte
// (the odd bytes for UTF-16LE, the even ones for UTF-16BE), OR-ing words
// together, and blk has no odd trailing byte.
func (form Form) latin1Only(blk []byte) bool {
	if len(blk)%2 != 0 {
		return false
	}
	high := uint64(0xff00ff00ff00ff00)
	if form == UTF16BE {
		high = 0x00ff00ff00ff00ff
	}
	var acc uint64
	i := 0
	for ; i+32 <= len(blk); i += 32 {
		w := blk[i : i+32 : i+32]
		acc |= binary.LittleEndian.Uint64(w) | binary.LittleEndian.Uint64(w[8:]) |
			binary.LittleEndian.Uint64(w[16:]) | binary.LittleEndian.Uint64(w[24:])
	}
	for ; i+8 <= len(blk); i += 8 {
		acc |= binary.LittleEndian.Uint64(blk[i:])
	}
	if acc&high != 0 {
		return false
	}
	for ; i+1 < len(blk); i += 2 {
		if form == UTF16LE && blk[i+1] != 0 || form == UTF16BE && blk[i] != 0 {
			return false
		}
	}
	return true
}

// lastUnit returns the index of the last newline unit of blk, or -1.
func (form Form) lastUnit(blk []byte) int {
	for i := (len(blk) - 2) &^ 1; i >= 0; i -= 2 {
		if form == UTF16LE && blk[i] == '\n' && blk[i+1] == 0 || form == UTF16BE && blk[i] == 0 && blk[i+1] == '\n' {
			return i
		}
	}
	return -1
}

// scanWide is Scan for the UTF-16 forms, from mark m.
func (ix *Index) scanWide(ctx context.Context, f io.ReaderAt, m Mark, from int64, prefix int, fn LineFunc) error {
	sr := io.NewSectionReader(f, m.Off, ix.Size-m.Off)
	buf := make([]byte, min(int64(limits.ReadScanBufferBytes), sr.Size()+2)&^1)
	keep := prefix + 2 // room for a "\r" unit a long line's prefix would lose
	var cur []byte
	long := false
	no := m.Line
	for {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("scan lines: %w", err)
		}
		n, err := io.ReadFull(sr, buf)
		chunk := buf[:n]
		for start := 0; start < len(chunk); {
			k := ix.form.nextUnit(chunk, start)
			end := k
			if k < 0 {
				end = len(chunk)
			}
			if no >= from {
				piece := chunk[start:end]
				if room := keep - len(cur); len(piece) > room {
					piece, long = piece[:room], true
				}
				cur = append(cur, piece...)
			}
			if k < 0 {
				break
			}
			if no >= from {
				line := ix.form.trimCR(cur)
				isLong := long || len(line) > prefix
				if len(line) > prefix {
					line = line[:prefix]
				}
				if !fn(no, line, isLong) {
					return nil
				}
			}
			cur, long = cur[:0], false
			no++
			start = k + 2
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			if no >= from && no <= ix.Lines {
				line := cur
				isLong := long || len(line) > prefix
				if len(line) > prefix {
					line = line[:prefix]
				}
				fn(no, line, isLong)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("scan lines: %w", err)
		}
	}
}

// trimCR drops a trailing "\r" unit.
func (form Form) trimCR(b []byte) []byte {
	n := len(b)
	if n < 2 {
		return b
	}
	if form == UTF16LE && b[n-2] == '\r' && b[n-1] == 0 || form == UTF16BE && b[n-2] == 0 && b[n-1] == '\r' {
		return b[:n-2]
	}
	return b
}
