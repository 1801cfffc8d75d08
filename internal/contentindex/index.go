package contentindex

import (
	"encoding/binary"
	"math"
	"slices"
	"sort"
	"unsafe"
)

// Index is one mmapped index file. Its methods may be called concurrently;
// Close must come after every other call has returned.
type Index struct {
	data []byte
	f    footer
	root string
	ino  uint64 // the file's inode, to notice a newer index renamed over it
	docs map[string]uint32
	// fileOf maps a block to its document, or is nil when every document
	// is at most one block, numbered as the documents are.
	fileOf []uint32
}

// Doc is what the index recorded of one document.
type Doc struct {
	Rel         string
	Size, MTime int64
	Indexed     bool
	Binary      bool
	// BinarySettled: binary by content as of Size and MTime, with the
	// trust an indexed document has; grep skips it.
	BinarySettled bool
	Decoded       bool // text in another encoding, matched decoded (SPEC §4.1)
	id            uint32
}

// loadDocs builds the path → document map (the keys point into the
// mapping) and the block → document map.
func (ix *Index) loadDocs() error {
	ix.docs = make(map[string]uint32, ix.f.ndocs)
	split := false
	for id := range ix.f.ndocs {
		e := ix.data[ix.f.docOff+uint64(id)*docEntry:]
		off, n := uint64(binary.LittleEndian.Uint32(e)), uint64(binary.LittleEndian.Uint32(e[4:]))
		if ix.f.pathOff+off+n > ix.f.rootOff || n == 0 {
			return errCorrupt
		}
		p := ix.data[ix.f.pathOff+off : ix.f.pathOff+off+n]
		ix.docs[unsafe.String(&p[0], len(p))] = id
		split = split || ix.firstBlock(id) != id
	}
	if !split && ix.f.nblocks == ix.f.ndocs {
		return nil
	}
	ix.fileOf = make([]uint32, ix.f.nblocks)
	for id := range ix.f.ndocs {
		lo, hi := ix.blocksOf(id)
		if lo > hi || hi > ix.f.nblocks {
			return errCorrupt
		}
		size := ix.docSize(id)
		for b := lo; b < hi; b++ {
			ix.fileOf[b] = id
			// Each block starts after the one before it, inside the
			// document, the first at its start (MatchSpans reads them).
			if b == lo && ix.blockStart(b) != 0 || b > lo && (ix.blockStart(b) <= ix.blockStart(b-1) || int64(ix.blockStart(b)) >= size) {
				return errCorrupt
			}
		}
	}
	if ix.f.ndocs > 0 && ix.firstBlock(0) != 0 {
		return errCorrupt
	}
	return nil
}

// blocksOf returns the blocks [lo, hi) of document id: from its first
// block to the next document's (the last document's run to the end).
func (ix *Index) blocksOf(id uint32) (lo, hi uint32) {
	lo, hi = ix.firstBlock(id), ix.f.nblocks
	if id+1 < ix.f.ndocs {
		hi = ix.firstBlock(id + 1)
	}
	return lo, hi
}

// firstBlock returns the first block of document id.
func (ix *Index) firstBlock(id uint32) uint32 {
	return binary.LittleEndian.Uint32(ix.data[ix.f.docOff+uint64(id)*docEntry+28:])
}

// NumDocs returns the number of documents.
func (ix *Index) NumDocs() int { return int(ix.f.ndocs) }

// TextBytes returns the bytes of text indexed.
func (ix *Index) TextBytes() int64 { return int64(ix.f.textBytes) }

// SizeBytes returns the size of the index file.
func (ix *Index) SizeBytes() int64 { return int64(len(ix.data)) }

// Lookup returns the document of a root-relative path.
func (ix *Index) Lookup(rel string) (Doc, bool) {
	id, ok := ix.docs[rel]
	if !ok {
		return Doc{}, false
	}
	return ix.doc(id), true
}

func (ix *Index) doc(id uint32) Doc {
	e := ix.data[ix.f.docOff+uint64(id)*docEntry:]
	flags := binary.LittleEndian.Uint32(e[24:])
	off, n := uint64(binary.LittleEndian.Uint32(e)), uint64(binary.LittleEndian.Uint32(e[4:]))
	return Doc{
		Rel:           unsafe.String(&ix.data[ix.f.pathOff+off], int(n)),
		Size:          ix.docSize(id),
		MTime:         int64(binary.LittleEndian.Uint64(e[16:])),
		Indexed:       flags&docIndexed != 0,
		Binary:        flags&docBinary != 0,
		BinarySettled: flags&docBinarySettled != 0,
		Decoded:       flags&docDecoded != 0,
		id:            id,
	}
}

// docSize returns the size document id had when indexed.
func (ix *Index) docSize(id uint32) int64 {
	return int64(binary.LittleEndian.Uint64(ix.data[ix.f.docOff+uint64(id)*docEntry+8:]))
}

// list returns the count and encoded list of trigram t (count 0: absent).
func (ix *Index) list(t uint32) (int, []byte) {
	tab := ix.data[ix.f.triOff:ix.f.docOff]
	n := int(ix.f.ntri)
	i := sort.Search(n, func(i int) bool { return binary.LittleEndian.Uint32(tab[i*triEntry:]) >= t })
	if i == n || binary.LittleEndian.Uint32(tab[i*triEntry:]) != t {
		return 0, nil
	}
	e := tab[i*triEntry:]
	count := int(binary.LittleEndian.Uint32(e[4:]))
	off := uint64(binary.LittleEndian.Uint32(e[8:]))
	if off >= ix.f.triOff {
		return 0, nil
	}
	return count, ix.data[off:ix.f.triOff]
}

// Match returns the set of documents whose trigrams satisfy q, one bit per
// document id, or all=true when q matches every document. Documents that
// are not indexed are not in the set; the caller treats them as candidates.
// When q.Lines, a document is in the set when one of its blocks satisfies
// q; else when the trigrams of all its blocks together do. blocks is the
// set of the blocks satisfying q when q.Lines and some document is several
// blocks (see MatchSpans), else nil.
func (ix *Index) Match(q *Query) (set, blocks []uint64, all bool, err error) {
	perBlock := q.Lines || ix.fileOf == nil
	set, all, err = ix.match(q, !perBlock)
	if err != nil || all {
		return nil, nil, all, err
	}
	if perBlock {
		if ix.fileOf != nil {
			blocks = set
		}
		set = ix.toFiles(set)
	}
	return set, blocks, false, nil
}

// MatchSpans returns the byte ranges [start, end) of document id, an
// indexed one, that can hold a line with a match of a query, given the
// blocks satisfying it (Match's blocks; nil when the query's matches may
// hold a line break, or no document is several blocks): its satisfying
// blocks, adjacent ones joined, or the whole document. A block ends at a
// line break (see blockCutter), and a line holding a match lies inside one
// satisfying block when the query's matches hold no line break. The whole
// document is the span [0, math.MaxInt64) (wholeDoc).
func (ix *Index) MatchSpans(id uint32, blocks []uint64) [][2]int64 {
	lo, hi := ix.blocksOf(id)
	if blocks == nil || hi-lo < 2 {
		return wholeDoc
	}
	size := ix.docSize(id)
	var spans [][2]int64
	for b := lo; b < hi; b++ {
		if blocks[b>>6]&(1<<(b&63)) == 0 {
			continue
		}
		end := size
		if b+1 < hi {
			end = int64(ix.blockStart(b + 1))
		}
		if n := len(spans); n > 0 && spans[n-1][1] == int64(ix.blockStart(b)) {
			spans[n-1][1] = end
		} else {
			spans = append(spans, [2]int64{int64(ix.blockStart(b)), end})
		}
	}
	return spans
}

// wholeDoc is the spans of a whole document, [0, math.MaxInt64): to its
// end, whatever its size, and shared by every answer that reads a whole
// document, so that a broad grep's candidates cost no allocation each. Its
// readers never modify it.
var wholeDoc = [][2]int64{{0, math.MaxInt64}}

// blockStart returns where block b starts in its document.
func (ix *Index) blockStart(b uint32) uint32 {
	return binary.LittleEndian.Uint32(ix.data[ix.f.startOff+uint64(b)*4:])
}

// match returns the set of blocks satisfying q, or, when byFile, the set of
// documents whose blocks together satisfy it.
func (ix *Index) match(q *Query, byFile bool) (set []uint64, all bool, err error) {
	switch q.Op {
	case OpAll:
		return nil, true, nil
	case OpNone:
		if byFile {
			return ix.newSet(), false, nil
		}
		return ix.newBlockSet(), false, nil
	}
	var parts [][]uint64
	tris := slices.Clone(q.Tri)
	if q.Op == OpAnd {
		// Rarest first, so an empty intersection is found early.
		slices.SortFunc(tris, func(a, b uint64) int {
			ca, _ := ix.list(uint32(a & triMask))
			cb, _ := ix.list(uint32(b & triMask))
			return ca - cb
		})
	}
	var keep []uint64 // blocks an AND still needs: those of the rarest term's answer
	for i, t := range tris {
		s := ix.newBlockSet()
		if count, data := ix.list(uint32(t & triMask)); count > 0 {
			if err := matchList(s, data, count, int(ix.f.nblocks), t, keep); err != nil {
				return nil, false, err
			}
		}
		if byFile {
			s = ix.toFiles(s)
		}
		parts = append(parts, s)
		if q.Op == OpAnd && isEmpty(s) {
			return s, false, nil
		}
		if q.Op == OpAnd && i == 0 && (len(tris) > 1 || len(q.Sub) > 0) {
			keep = s
			if byFile {
				keep = ix.toBlocks(s)
			}
		}
	}
	for _, sub := range q.Sub {
		s, subAll, err := ix.match(sub, byFile)
		if err != nil {
			return nil, false, err
		}
		if subAll {
			if q.Op == OpOr {
				return nil, true, nil
			}
			continue
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return nil, q.Op == OpAnd, nil
	}
	acc := parts[0]
	for _, p := range parts[1:] {
		for i := range acc {
			if q.Op == OpAnd {
				acc[i] &= p[i]
			} else {
				acc[i] |= p[i]
			}
		}
	}
	return acc, false, nil
}

func (ix *Index) newSet() []uint64 { return make([]uint64, (ix.f.ndocs+63)/64) }

func (ix *Index) newBlockSet() []uint64 { return make([]uint64, (ix.f.nblocks+63)/64) }

func isEmpty(s []uint64) bool {
	for _, w := range s {
		if w != 0 {
			return false
		}
	}
	return true
}

// has reports whether document id is in set.
func has(set []uint64, id uint32) bool { return set[id>>6]&(1<<(id&63)) != 0 }
