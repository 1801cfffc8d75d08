package rope

import (
	"bytes"
	"hash/crc32"
	"io"
	"math/rand/v2"
)

// maxLeaf is the largest chunk New cuts a text into; Replace splits chunks
// but never copies more than one chunk's bytes.
var maxLeaf = 4096 // tests shorten it

// node is one chunk of a Text and the subtree of chunks around it, in order:
// left, chunk, right. Nodes are never modified once built.
type node struct {
	left, right *node
	chunk       []byte // never appended to, never written
	clines      int    // '\n' bytes in chunk
	prio        uint32
	size        int // bytes in the subtree
	lines       int // '\n' bytes in the subtree
}

// Text is an immutable text. The zero value is the empty text.
type Text struct{ root *node }

// leaf returns a node of its own for chunk.
func leaf(chunk []byte, prio uint32) *node {
	c := bytes.Count(chunk, nl)
	return &node{chunk: chunk, clines: c, prio: prio, size: len(chunk), lines: c}
}

// mk returns a node for n's chunk (its line count known) between left and right.
func mk(left *node, n *node, right *node) *node {
	return join(left, n.chunk, n.clines, n.prio, right)
}

func join(left *node, chunk []byte, clines int, prio uint32, right *node) *node {
	n := &node{left: left, right: right, chunk: chunk, clines: clines, prio: prio,
		size: len(chunk), lines: clines}
	if left != nil {
		n.size += left.size
		n.lines += left.lines
	}
	if right != nil {
		n.size += right.size
		n.lines += right.lines
	}
	return n
}

var nl = []byte{'\n'}

// New returns a Text holding a copy of b.
func New(b []byte) Text {
	b = bytes.Clone(b)
	var leaves []*node
	for len(b) > 0 {
		n := min(len(b), maxLeaf)
		leaves = append(leaves, leaf(b[:n:n], rand.Uint32()))
		b = b[n:]
	}
	return Text{root: build(leaves)}
}

// build joins leaves, in order, into one treap in O(len(leaves)).
func build(leaves []*node) *node {
	var root *node
	for _, l := range leaves {
		root = merge(root, l)
	}
	return root
}

// Len returns the text's length in bytes.
func (t Text) Len() int { return size(t.root) }

// Lines returns the number of '\n' bytes in the text.
func (t Text) Lines() int {
	if t.root == nil {
		return 0
	}
	return t.root.lines
}

func size(n *node) int {
	if n == nil {
		return 0
	}
	return n.size
}

// merge joins a and b, every byte of a before every byte of b.
func merge(a, b *node) *node {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.prio >= b.prio:
		return mk(a.left, a, merge(a.right, b))
	default:
		return mk(merge(a, b.left), b, b.right)
	}
}

// split cuts n at byte offset off (0 <= off <= size(n)) into the bytes
// before it and those from it on. A chunk cut in two shares its bytes.
func split(n *node, off int) (*node, *node) {
	if n == nil {
		return nil, nil
	}
	ls := size(n.left)
	switch {
	case off <= ls:
		a, b := split(n.left, off)
		return a, mk(b, n, n.right)
	case off >= ls+len(n.chunk):
		a, b := split(n.right, off-ls-len(n.chunk))
		return mk(n.left, n, a), b
	}
	k := off - ls
	head, tail := leaf(n.chunk[:k:k], n.prio), n.chunk[k:]
	// The tail goes to the right subtree as a node of its own, below n's
	// priority so the treap's order holds.
	right := merge(leaf(tail, rand.Uint32N(n.prio+1)), n.right)
	return mk(n.left, head, nil), right
}

// Replace returns the text with bytes [start, end) replaced by a copy of
// with. It panics unless 0 <= start <= end <= Len().
func (t Text) Replace(start, end int, with []byte) Text {
	if start < 0 || start > end || end > t.Len() {
		panic("rope: Replace range out of bounds")
	}
	a, rest := split(t.root, start)
	_, c := split(rest, end-start)
	mid := New(with).root
	return Text{root: merge(merge(a, mid), c)}
}

// Bytes returns a copy of the whole text.
func (t Text) Bytes() []byte {
	b := make([]byte, 0, t.Len())
	t.each(t.root, func(c []byte) bool { b = append(b, c...); return true })
	return b
}

// String returns the whole text.
func (t Text) String() string { return string(t.Bytes()) }

// each calls f with every chunk in order until f returns false.
func (t Text) each(n *node, f func([]byte) bool) bool {
	if n == nil {
		return true
	}
	return t.each(n.left, f) && (len(n.chunk) == 0 || f(n.chunk)) && t.each(n.right, f)
}

// Chunks calls f with the text's chunks in order until f returns false. The
// chunks must not be modified.
func (t Text) Chunks(f func([]byte) bool) { t.each(t.root, f) }

// WriteTo writes the whole text to w.
func (t Text) WriteTo(w io.Writer) (int64, error) {
	var n int64
	var err error
	t.each(t.root, func(c []byte) bool {
		var k int
		k, err = w.Write(c)
		n += int64(k)
		return err == nil
	})
	return n, err
}

// CRC32C returns the Castagnoli CRC-32 of the whole text.
func (t Text) CRC32C() uint32 {
	tab := crc32.MakeTable(crc32.Castagnoli)
	var sum uint32
	t.each(t.root, func(c []byte) bool { sum = crc32.Update(sum, tab, c); return true })
	return sum
}

// LineStart returns the byte offset where line (0-based) starts: 0 for line
// 0, else just after the line-th '\n'. A line past the last returns Len()
// and false.
func (t Text) LineStart(line int) (int, bool) {
	if line == 0 {
		return 0, true
	}
	if line > t.Lines() {
		return t.Len(), false
	}
	off := 0
	n := t.root
	for n != nil {
		ll := 0
		if n.left != nil {
			ll = n.left.lines
		}
		if line <= ll {
			n = n.left
			continue
		}
		off += size(n.left)
		line -= ll
		c := n.clines
		if line <= c {
			i := 0
			for ; line > 0; line-- {
				i += bytes.IndexByte(n.chunk[i:], '\n') + 1
			}
			return off + i, true
		}
		line -= c
		off += len(n.chunk)
		n = n.right
	}
	return t.Len(), false // not reached: line <= Lines()
}

// Slice returns a copy of bytes [start, end), clamped to the text.
func (t Text) Slice(start, end int) []byte {
	start, end = max(start, 0), min(end, t.Len())
	if start >= end {
		return nil
	}
	out := make([]byte, 0, end-start)
	t.slice(t.root, 0, start, end, &out)
	return out
}

func (t Text) slice(n *node, base, start, end int, out *[]byte) {
	if n == nil || base >= end || base+n.size <= start {
		return
	}
	t.slice(n.left, base, start, end, out)
	cb := base + size(n.left)
	lo, hi := max(start-cb, 0), min(end-cb, len(n.chunk))
	if lo < hi {
		*out = append(*out, n.chunk[lo:hi]...)
	}
	t.slice(n.right, cb+len(n.chunk), start, end, out)
}

// Reader returns a reader of the whole text.
func (t Text) Reader() io.Reader {
	var chunks [][]byte
	t.each(t.root, func(c []byte) bool { chunks = append(chunks, c); return true })
	return &reader{chunks: chunks}
}

type reader struct{ chunks [][]byte }

func (r *reader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && len(r.chunks) > 0 {
		k := copy(p[n:], r.chunks[0])
		n += k
		if k == len(r.chunks[0]) {
			r.chunks = r.chunks[1:]
		} else {
			r.chunks[0] = r.chunks[0][k:]
		}
	}
	if n == 0 && len(r.chunks) == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// LinesBefore returns the number of '\n' bytes in [0, off), off clamped to
// the text.
func (t Text) LinesBefore(off int) int {
	count := 0
	n := t.root
	for n != nil && off > 0 {
		ls := size(n.left)
		if off <= ls {
			n = n.left
			continue
		}
		if n.left != nil {
			count += n.left.lines
		}
		off -= ls
		if off <= len(n.chunk) {
			return count + bytes.Count(n.chunk[:off], nl)
		}
		count += n.clines
		off -= len(n.chunk)
		n = n.right
	}
	return count
}
