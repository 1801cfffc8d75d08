package contentindex

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// The index file, all integers little-endian:
//
//	postings   one encoded list per trigram (see encodeList)
//	trigrams   ntri entries of {tri u32, count u32, off u64}, ascending by tri
//	docs       ndocs entries of {pathOff u32, pathLen u32, size i64, mtime i64, flags u32, pad u32}
//	paths      the docs' paths relative to the root, concatenated
//	root       the root's real path
//	footer     {magic [8]byte, ndocs u32, ntri u32, triOff, docOff, pathOff, rootOff, rootLen, textBytes u64}
const (
	magic      = "TRIDX002"
	triEntry   = 16
	docEntry   = 32
	footerSize = 8 + 4 + 4 + 6*8
)

// Document flags.
const (
	// docIndexed: the document's trigrams are in the postings. A document
	// without it (binary, too large, unreadable, or read within
	// limits.IndexRacyWindow of its mtime) is always a candidate.
	docIndexed = 1 << iota
	// docBinary: the document was binary when read (for statistics).
	docBinary
)

// List kinds, the first byte of an encoded list.
const (
	listVarint = 0 // ascending doc ids as uvarint deltas (the first from 0)
	listBitmap = 1 // one bit per document, ceil(ndocs/8) bytes
)

type footer struct {
	ndocs, ntri                               uint32
	triOff, docOff, pathOff, rootOff, rootLen uint64
	textBytes                                 uint64
}

func (f *footer) encode() []byte {
	b := make([]byte, 0, footerSize)
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint32(b, f.ndocs)
	b = binary.LittleEndian.AppendUint32(b, f.ntri)
	for _, v := range []uint64{f.triOff, f.docOff, f.pathOff, f.rootOff, f.rootLen, f.textBytes} {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	return b
}

var errCorrupt = errors.New("index file is corrupt or of another version")

// decodeFooter reads and bounds-checks the footer of an index file of size n.
func decodeFooter(data []byte) (footer, error) {
	var f footer
	n := uint64(len(data))
	if n < footerSize || string(data[n-footerSize:n-footerSize+8]) != magic {
		return f, errCorrupt
	}
	b := data[n-footerSize+8:]
	f.ndocs = binary.LittleEndian.Uint32(b)
	f.ntri = binary.LittleEndian.Uint32(b[4:])
	v := make([]uint64, 6)
	for i := range v {
		v[i] = binary.LittleEndian.Uint64(b[8+8*i:])
	}
	f.triOff, f.docOff, f.pathOff, f.rootOff, f.rootLen, f.textBytes = v[0], v[1], v[2], v[3], v[4], v[5]
	end := n - footerSize
	ok := f.triOff <= end && f.triOff+uint64(f.ntri)*triEntry == f.docOff &&
		f.docOff+uint64(f.ndocs)*docEntry == f.pathOff && f.pathOff <= f.rootOff &&
		f.rootOff+f.rootLen == end
	if !ok {
		return f, errCorrupt
	}
	return f, nil
}

// encodeList appends the encoding of ascending doc ids of an index of
// ndocs documents: uvarint deltas, or a bitmap when that is smaller (a
// trigram in more than about one document in eight).
func encodeList(dst []byte, ids []uint32, ndocs int) []byte {
	bitmapLen := (ndocs + 7) / 8
	varintLen := 0
	prev := uint32(0)
	for i, id := range ids {
		d := id - prev
		if i == 0 {
			d = id
		}
		varintLen += (bits.Len32(d|1) + 6) / 7
		prev = id
	}
	if varintLen > bitmapLen {
		dst = append(dst, listBitmap)
		start := len(dst)
		dst = append(dst, make([]byte, bitmapLen)...)
		for _, id := range ids {
			dst[start+int(id>>3)] |= 1 << (id & 7)
		}
		return dst
	}
	dst = append(dst, listVarint)
	prev = 0
	for i, id := range ids {
		d := id - prev
		if i == 0 {
			d = id
		}
		dst = binary.AppendUvarint(dst, uint64(d))
		prev = id
	}
	return dst
}

// orList ORs the list at data (count ids of an index of ndocs documents)
// into the bitmap dst.
func orList(dst []uint64, data []byte, count, ndocs int) error {
	if len(data) == 0 {
		return errCorrupt
	}
	switch data[0] {
	case listBitmap:
		b := data[1:]
		if len(b) < (ndocs+7)/8 {
			return errCorrupt
		}
		for i := range dst {
			var w uint64
			for k := 0; k < 8 && i*8+k < len(b); k++ {
				w |= uint64(b[i*8+k]) << (8 * k)
			}
			dst[i] |= w
		}
		return nil
	case listVarint:
		p := 1
		id := uint64(0)
		for i := range count {
			d, n := binary.Uvarint(data[p:])
			if n <= 0 {
				return errCorrupt
			}
			p += n
			if i == 0 {
				id = d
			} else {
				id += d
			}
			if id >= uint64(ndocs) {
				return errCorrupt
			}
			dst[id>>6] |= 1 << (id & 63)
		}
		return nil
	}
	return fmt.Errorf("list kind %d: %w", data[0], errCorrupt)
}
