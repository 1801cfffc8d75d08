package contentindex

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// The index file, all integers little-endian:
//
//	postings   one encoded list per folded trigram (see encodeList)
//	trigrams   ntri entries of {tri u32, count u32, off u32}, ascending by tri
//	docs       ndocs entries of {pathOff u32, pathLen u32, size i64, mtime i64, flags u32, pad u32}
//	paths      the docs' paths relative to the root, concatenated
//	root       the root's real path
//	footer     {magic [8]byte, ndocs u32, ntri u32, triOff, docOff, pathOff, rootOff, rootLen, textBytes u64}
const (
	magic      = "TRIDX005" // 004: docDecoded; 005: folded trigrams, masks with case bits
	triEntry   = 12
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
	// docDecoded: the document is text in another encoding (SPEC §4.1),
	// which grep matches decoded: never indexed, always a candidate.
	docDecoded
)

// List kinds, the first byte of an encoded list, plus listMasks when one
// mask (see caseMaskShift) per document follows the ids.
const (
	listVarint = 0 // ascending doc ids as uvarint deltas (the first from 0)
	listBitmap = 1 // one bit per document, ceil(ndocs/8) bytes
	listMasks  = 2
)

// masksFrom is the share of documents (1/masksFrom) a trigram must be in
// for its list to carry masks: a rarer trigram narrows enough on its own,
// and masks cost a byte per document.
const masksFrom = 256

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
// ndocs documents: uvarint deltas, or, when that is smaller, a bitmap of
// one bit per document (a trigram in more than about one document in
// eight); then, for a trigram in at least 1/masksFrom of the documents, one
// mask per id.
func encodeList(dst []byte, ids []uint32, masks []uint8, ndocs int) []byte {
	kind := byte(listVarint)
	withMasks := len(ids)*masksFrom >= ndocs
	if withMasks {
		kind |= listMasks
	}
	bitmapLen := (ndocs + 7) / 8
	varintLen := 0
	prev := uint32(0)
	for _, id := range ids {
		varintLen += (bits.Len32((id-prev)|1) + 6) / 7
		prev = id
	}
	if varintLen > bitmapLen {
		dst = append(dst, kind|listBitmap)
		start := len(dst)
		dst = append(dst, make([]byte, bitmapLen)...)
		for _, id := range ids {
			dst[start+int(id>>3)] |= 1 << (id & 7)
		}
	} else {
		dst = append(dst, kind)
		prev = 0
		for _, id := range ids {
			dst = binary.AppendUvarint(dst, uint64(id-prev))
			prev = id
		}
	}
	if withMasks {
		dst = append(dst, masks...)
	}
	return dst
}

// skipUvarints returns the length of the first count uvarints of b.
func skipUvarints(b []byte, count int) (int, error) {
	p := 0
	for range count {
		for {
			if p >= len(b) {
				return 0, errCorrupt
			}
			c := b[p]
			p++
			if c < 0x80 {
				break
			}
		}
	}
	return p, nil
}

// matchBitmap ORs into dst the documents of bitmap b whose mask (in the
// order of the set bits) allows term t.
func matchBitmap(dst []uint64, b []byte, masks []uint8, t uint64) error {
	rank := 0
	for i, c := range b {
		for c != 0 {
			k := bits.TrailingZeros8(c)
			c &= c - 1
			if rank >= len(masks) {
				return errCorrupt
			}
			if termAllows(t, masks[rank]) {
				id := i*8 + k
				dst[id>>6] |= 1 << (id & 63)
			}
			rank++
		}
	}
	return nil
}

// matchList ORs into the bitmap dst the documents of the list at data
// (count ids of an index of ndocs documents) that allow term t.
func matchList(dst []uint64, data []byte, count, ndocs int, t uint64) error {
	if len(data) == 0 {
		return errCorrupt
	}
	withMasks := data[0]&listMasks != 0
	if !withMasks {
		t &= triMask // no masks: every document allows every follower
	}
	switch data[0] &^ listMasks {
	case listBitmap:
		b := data[1:]
		if len(b) < (ndocs+7)/8 {
			return errCorrupt
		}
		if t&^triMask != 0 {
			if len(b) < (ndocs+7)/8+count {
				return errCorrupt
			}
			return matchBitmap(dst, b[:(ndocs+7)/8], b[(ndocs+7)/8:][:count], t)
		}
		b = b[:(ndocs+7)/8]
		i := 0
		for ; (i+1)*8 <= len(b) && i < len(dst); i++ {
			dst[i] |= binary.LittleEndian.Uint64(b[i*8:])
		}
		for ; i < len(dst); i++ {
			var w uint64
			for k := 0; k < 8 && i*8+k < len(b); k++ {
				w |= uint64(b[i*8+k]) << (8 * k)
			}
			dst[i] |= w
		}
		return nil
	case listVarint:
		var masks []byte
		if t&^triMask != 0 {
			// The masks follow the ids: find where the ids end first, so
			// nothing is allocated.
			end, err := skipUvarints(data[1:], count)
			if err != nil || len(data) < 1+end+count {
				return errCorrupt
			}
			masks = data[1+end : 1+end+count]
		}
		p, id := 1, uint64(0)
		for i := range count {
			d, n := binary.Uvarint(data[p:])
			if n <= 0 {
				return errCorrupt
			}
			p += n
			id += d
			if id >= uint64(ndocs) {
				return errCorrupt
			}
			if masks == nil || termAllows(t, masks[i]) {
				dst[id>>6] |= 1 << (id & 63)
			}
		}
		return nil
	}
	return fmt.Errorf("list kind %d: %w", data[0], errCorrupt)
}
