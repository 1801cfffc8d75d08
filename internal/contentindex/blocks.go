package contentindex

import (
	"bytes"
	"math/bits"
	"regexp/syntax"
	"slices"

	"github.com/toolrpc/toolrpc/limits"
)

// blockBytes is limits.IndexBlockBytes; tests shorten it.
var blockBytes = limits.IndexBlockBytes

// blockSize returns the block size of a file of size bytes: blockBytes, or
// more for a file that would have more than limits.IndexMaxFileBlocks.
func blockSize(size int64) int {
	return max(blockBytes, int(size/limits.IndexMaxFileBlocks)+1)
}

// blockOverlap is how far a block's trigrams reach past its end: every
// trigram that starts in a block is recorded in it with both of its
// followers (the byte after it and the three bytes after it), so an
// occurrence that crosses a block's end is never lost.
const blockOverlap = 5

// blockCutter feeds a file's pieces to set and, when cut is not nil, splits
// the file into blocks: a block ends at the first line break at least
// size (see blockSize) past its start that leaves blockOverlap more bytes in the same
// piece. The block's trigrams are those of its bytes and of the blockOverlap
// bytes after it, so any text inside one line lies in one block's trigrams,
// and every occurrence of a trigram (with its followers) lies in some block.
type blockCutter struct {
	set  *triSet
	cut  func(set *triSet, next int64) // called with each block but the last, and the offset where the next one starts; set is Reset after
	size int                           // bytes a block has at least
	n    int                           // bytes of the current block added so far
	at   int64                         // the file's offset of the current block's start
}

// add adds the next piece of the file.
func (c *blockCutter) add(p []byte) {
	for c.cut != nil {
		from := max(c.size-1-c.n, 0) // the block may end after p[from] at the earliest
		if from >= len(p) {
			break
		}
		j := bytes.IndexByte(p[from:], '\n')
		if j < 0 || from+j+1+blockOverlap > len(p) {
			break // the next piece ends it
		}
		end := from + j + 1
		c.set.Add(p[:end+blockOverlap])
		// Its last trigrams start in the next block, which records what
		// follows them: the end of this one is no end of the text.
		c.set.ended = true
		c.at += int64(c.n + end)
		c.cut(c.set, c.at)
		c.set.Reset()
		p, c.n = p[end:], 0
	}
	c.set.Add(p)
	c.n += len(p)
}

// canMatchNewline reports whether a match of re may hold a line break:
// when it cannot, every match lies inside one line and so inside one
// block's trigrams, and a file is a candidate when one of its blocks is.
func canMatchNewline(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpAnyChar:
		return true
	case syntax.OpLiteral:
		return slices.Contains(re.Rune, '\n')
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] {
				return true
			}
		}
		return false
	}
	return slices.ContainsFunc(re.Sub, canMatchNewline)
}

// toBlocks returns the set of the blocks of the files of set (files
// space); set itself when every file is one block.
func (ix *Index) toBlocks(set []uint64) []uint64 {
	if ix.fileOf == nil {
		return set
	}
	out := ix.newBlockSet()
	for w, word := range set {
		for word != 0 {
			id := uint32(w*64 + bits.TrailingZeros64(word))
			word &= word - 1
			lo, hi := ix.blocksOf(id)
			for b := lo; b < hi; b++ {
				out[b>>6] |= 1 << (b & 63)
			}
		}
	}
	return out
}

// toFiles returns the set of the files of the blocks of set (blocks space);
// set itself when every file is one block.
func (ix *Index) toFiles(set []uint64) []uint64 {
	if ix.fileOf == nil {
		return set
	}
	out := ix.newSet()
	for w, word := range set {
		for word != 0 {
			b := w*64 + bits.TrailingZeros64(word)
			word &= word - 1
			f := ix.fileOf[b]
			out[f>>6] |= 1 << (f & 63)
		}
	}
	return out
}
