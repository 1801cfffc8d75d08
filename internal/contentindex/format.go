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
//	docs       ndocs entries of {pathOff u32, pathLen u32, size i64, mtime i64, flags u32, firstBlock u32}
//	starts     nblocks entries of {start u32}: where each block starts in its document
//	paths      the docs' paths relative to the root, concatenated
//	root       the root's real path
//	footer     {magic [8]byte, ndocs u32, ntri u32, nblocks u32, pad u32, triOff, docOff, pathOff, rootOff, rootLen, textBytes, startOff u64}
//
// The postings list blocks, not documents: a document is read as one or
// more blocks (see blockCutter), numbered in document order, the first of
// document i being firstBlock; an unindexed document has none.
const (
	magic      = "TRIDX009" // 004: docDecoded; 005: folded trigrams, one-byte masks; 006: masks by case (see appendMasks); 007: three-byte followers (see follow3Bit); 008: blocks; 009: block starts
	triEntry   = 12
	docEntry   = 32
	footerSize = 8 + 4 + 4 + 4 + 4 + 7*8
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
	// docBinarySettled: beside docBinary, the verdict holds for the
	// document's size and mtime as an indexed document's trigrams do (read
	// whole-headed, unchanged through the read, outside
	// limits.IndexRacyWindow): grep skips it (SPEC §4), so it is never a
	// candidate while its identity stands.
	docBinarySettled
)

// List kinds, the first byte of an encoded list, plus listMasks when the
// documents' masks (see caseMaskShift, appendMasks) follow the ids.
const (
	listVarint = 0 // ascending doc ids as uvarint deltas (the first from 0)
	listBitmap = 1 // one bit per document, ceil(ndocs/8) bytes
	listMasks  = 2
)

// masksFrom is the share of documents (1/masksFrom) a trigram must be in
// for its list to carry masks: a rarer trigram narrows enough on its own,
// and masks cost a byte or more per document.
const masksFrom = 256

type footer struct {
	ndocs, ntri, nblocks                      uint32
	triOff, docOff, pathOff, rootOff, rootLen uint64
	textBytes                                 uint64
	startOff                                  uint64
}

func (f *footer) encode() []byte {
	b := make([]byte, 0, footerSize)
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint32(b, f.ndocs)
	b = binary.LittleEndian.AppendUint32(b, f.ntri)
	b = binary.LittleEndian.AppendUint32(b, f.nblocks)
	b = binary.LittleEndian.AppendUint32(b, 0)
	for _, v := range []uint64{f.triOff, f.docOff, f.pathOff, f.rootOff, f.rootLen, f.textBytes, f.startOff} {
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
	f.nblocks = binary.LittleEndian.Uint32(b[8:])
	v := make([]uint64, 7)
	for i := range v {
		v[i] = binary.LittleEndian.Uint64(b[16+8*i:])
	}
	f.triOff, f.docOff, f.pathOff, f.rootOff, f.rootLen, f.textBytes, f.startOff = v[0], v[1], v[2], v[3], v[4], v[5], v[6]
	end := n - footerSize
	ok := f.triOff <= end && f.triOff+uint64(f.ntri)*triEntry == f.docOff &&
		f.docOff+uint64(f.ndocs)*docEntry == f.startOff && f.startOff+uint64(f.nblocks)*4 == f.pathOff && f.pathOff <= f.rootOff &&
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
func encodeList(dst []byte, ids []uint32, masks []uint16, ndocs int) []byte {
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
		dst = appendMasks(dst, masks)
	}
	return dst
}

// appendMasks appends the masks of a list: their low bytes (the followers
// of caseLower occurrences), a bitmap of one bit per mask telling which have
// a high byte (the followers of caseUpper occurrences), then those high
// bytes in order. Most documents hold a trigram in one case only, so most
// masks cost a byte and a bit.
func appendMasks(dst []byte, masks []uint16) []byte {
	for _, m := range masks {
		dst = append(dst, byte(m))
	}
	start := len(dst)
	dst = append(dst, make([]byte, (len(masks)+7)/8)...)
	for i, m := range masks {
		if m>>caseMaskShift != 0 {
			dst[start+i>>3] |= 1 << (i & 7)
			dst = append(dst, byte(m>>caseMaskShift))
		}
	}
	return dst
}

// maskReader reads the masks appendMasks wrote, in order.
type maskReader struct {
	low, has, high []byte
	i, hi          int
}

// newMaskReader returns the reader of the count masks at the start of b.
func newMaskReader(b []byte, count int) (*maskReader, error) {
	n := (count + 7) / 8
	if len(b) < count+n {
		return nil, errCorrupt
	}
	return &maskReader{low: b[:count], has: b[count : count+n], high: b[count+n:]}, nil
}

// next returns the next mask; it fails past the last or when the high
// bytes run out.
func (r *maskReader) next() (uint16, error) {
	if r.i >= len(r.low) {
		return 0, errCorrupt
	}
	m := uint16(r.low[r.i])
	if r.has[r.i>>3]&(1<<(r.i&7)) != 0 {
		if r.hi >= len(r.high) {
			return 0, errCorrupt
		}
		m |= uint16(r.high[r.hi]) << caseMaskShift
		r.hi++
	}
	r.i++
	return m, nil
}

// skip passes over the next n masks.
func (r *maskReader) skip(n int) error {
	if r.i+n > len(r.low) {
		return errCorrupt
	}
	for n > 0 {
		off := r.i & 7
		take := min(8-off, n)
		r.hi += bits.OnesCount8(r.has[r.i>>3] >> off & byte(uint(1)<<take-1))
		r.i += take
		n -= take
	}
	if r.hi > len(r.high) {
		return errCorrupt
	}
	return nil
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
// order of the set bits) allows term t. With keep set, only documents in
// keep are tested: a word of b none of whose documents keep holds skips its
// masks whole, so a term ANDed after a rare one costs its words, not its
// documents.
func matchBitmap(dst []uint64, b []byte, masks *maskReader, t uint64, keep []uint64) error {
	allows := newTermTest(t)
	for w := 0; w*8 < len(b); w++ {
		var word uint64
		if chunk := b[w*8:]; len(chunk) >= 8 {
			word = binary.LittleEndian.Uint64(chunk)
		} else {
			for i, c := range chunk {
				word |= uint64(c) << (8 * i)
			}
		}
		if word == 0 {
			continue
		}
		if keep != nil && word&keep[w] == 0 {
			if err := masks.skip(bits.OnesCount64(word)); err != nil {
				return err
			}
			continue
		}
		for word != 0 {
			k := bits.TrailingZeros64(word)
			word &= word - 1
			m, err := masks.next()
			if err != nil {
				return err
			}
			if (keep == nil || keep[w]&(1<<k) != 0) && allows.allows(m) {
				dst[w] |= 1 << k
			}
		}
	}
	return nil
}

// matchList ORs into the bitmap dst the documents of the list at data
// (count ids of an index of ndocs documents) that allow term t. keep, when
// set (ndocs bits), lets it leave out documents keep does not hold: the
// caller ANDs the answer with a set within keep.
func matchList(dst []uint64, data []byte, count, ndocs int, t uint64, keep []uint64) error {
	if len(data) == 0 {
		return errCorrupt
	}
	if data[0]&listMasks == 0 {
		t &= triMask // no masks: every document allows every term
	}
	switch data[0] &^ listMasks {
	case listBitmap:
		b := data[1:]
		if len(b) < (ndocs+7)/8 {
			return errCorrupt
		}
		if t&^triMask != 0 {
			masks, err := newMaskReader(b[(ndocs+7)/8:], count)
			if err != nil {
				return err
			}
			return matchBitmap(dst, b[:(ndocs+7)/8], masks, t, keep)
		}
		orBitmap(dst, b[:(ndocs+7)/8])
		return nil
	case listVarint:
		return matchVarint(dst, data[1:], count, ndocs, t)
	}
	return fmt.Errorf("list kind %d: %w", data[0], errCorrupt)
}

// orBitmap ORs the bitmap b (one bit per document) into dst.
func orBitmap(dst []uint64, b []byte) {
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
}

// matchVarint ORs into dst the documents of the uvarint-coded ids at b
// (then their masks, when t asks them) that allow term t.
func matchVarint(dst []uint64, b []byte, count, ndocs int, t uint64) error {
	var masks *maskReader
	if t&^triMask != 0 {
		// The masks follow the ids: find where the ids end first.
		end, err := skipUvarints(b, count)
		if err != nil {
			return err
		}
		if masks, err = newMaskReader(b[end:], count); err != nil {
			return err
		}
	}
	allows := newTermTest(t)
	p, id := 0, uint64(0)
	for range count {
		d, n := binary.Uvarint(b[p:])
		if n <= 0 {
			return errCorrupt
		}
		p += n
		id += d
		if id >= uint64(ndocs) {
			return errCorrupt
		}
		allowed := true
		if masks != nil {
			m, err := masks.next()
			if err != nil {
				return err
			}
			allowed = allows.allows(m)
		}
		if allowed {
			dst[id>>6] |= 1 << (id & 63)
		}
	}
	return nil
}
