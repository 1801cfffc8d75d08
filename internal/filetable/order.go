package filetable

import (
	"unsafe"

	"github.com/toolrpc/toolrpc/internal/roots"
	"github.com/toolrpc/toolrpc/walk"
)

// ref is one file of the table: d.files[i], with its time copied beside
// it so a sort compares without following d.
type ref struct {
	mtime int64
	d     *dirNode
	i     int32
	pos   int32 // rank of the file's path in byte order
}

// sortedOrder returns every file of the table newest first, ties in path
// order (walk.SortNewestFirst's order), recomputing it after a change;
// t.mu held. The slice is never modified once returned (a change makes a
// new one), so listings may share it after t.mu is released.
//
// A traversal that merges each directory's files (by name) with its
// subdirectories (by name + "/") meets the paths in byte order, so the
// sort needs only compare times and ranks.
func (t *Table) sortedOrder() []entry {
	if t.orderOK {
		return t.order
	}
	n := 0
	t.top.each(func(d *dirNode) { n += len(d.files) })
	refs := make([]ref, 0, n)
	var visit func(d *dirNode)
	visit = func(d *dirNode) {
		fi, di := 0, 0
		for fi < len(d.files) || di < len(d.dirs) {
			if di == len(d.dirs) || (fi < len(d.files) && fileDirCmp(d.files[fi].name, d.dirs[di].name) < 0) {
				refs = append(refs, ref{mtime: d.files[fi].mtime, d: d, i: int32(fi), pos: int32(len(refs))})
				fi++
				continue
			}
			visit(d.dirs[di])
			di++
		}
	}
	visit(t.top)
	sortRefs(refs)
	t.order, t.orderOK = entries(refs), true
	return t.order
}

// entries snapshots the files refs point at.
func entries(refs []ref) []entry {
	es := make([]entry, len(refs))
	for k, r := range refs {
		f := &r.d.files[r.i]
		es[k] = entry{d: r.d, name: f.name, mtime: f.mtime, size: f.size}
	}
	return es
}

// collect lists the files below n (the directory start) in walk.Walk's
// order: from the cached order of the whole table, or, when dir prunes
// subdirectories (as walk.Options.Dir), from a traversal of the
// subdirectories dir accepts. keep sees rel and name in a scratch buffer: it
// must not retain them. The listing holds a snapshot of the files (sharing
// the table's immutable strings) and builds each File when it is read, so
// it stays valid after t.mu is released.
func (t *Table) collect(n *dirNode, start string, keep func(rel, name string) bool, dir func(rel string) bool) *listing {
	l := &listing{start: start}
	if n != t.top {
		l.skip = len(n.path) + 1
	}
	var es []entry
	if dir == nil {
		es = t.sortedOrder()
		if n == t.top && keep == nil {
			l.es = es // shared, read only
			return l
		}
	} else {
		es = entries(pruned(n, dir))
	}
	var buf []byte
	for _, e := range es {
		if dir == nil && n != t.top && !roots.Within(n.path, e.d.path) {
			continue
		}
		if keep != nil {
			buf = l.appendRel(buf[:0], e.d.path, e.name)
			rel := unsafe.String(unsafe.SliceData(buf), len(buf))
			if !keep(rel, rel[len(rel)-len(e.name):]) {
				continue
			}
		}
		l.es = append(l.es, e)
	}
	return l
}

// listing is a table's answer to one listing (walk.Files).
type listing struct {
	start   string
	skip    int     // bytes of a directory path (below the root) above start, with the slash
	es      []entry // read only
	version version // the table's state the listing was taken in
}

// version is a state of one table: its generation (Table.gen) when a
// listing was taken.
type version struct {
	t   *Table
	gen int
}

// entry is one file of a listing. Its directory's path never changes, and
// the name is an immutable string, so an entry may be read without t.mu.
type entry struct {
	d           *dirNode
	name        string
	mtime, size int64
}

// Len returns the number of files.
func (l *listing) Len() int { return len(l.es) }

// At builds the i-th file.
func (l *listing) At(i int) walk.File {
	e := &l.es[i]
	abs := make([]byte, 0, len(l.start)+2+len(e.d.path)+len(e.name))
	abs = append(append(abs, l.start...), '/')
	abs = l.appendRel(abs, e.d.path, e.name)
	s := string(abs)
	return walk.File{Abs: s, Rel: s[len(l.start)+1:], ModTime: e.mtime, Size: e.size}
}

// AppendAbs appends the i-th file's absolute path to dst without building
// the file, so a content index can drop files it rules out for free
// (walk.Files).
func (l *listing) AppendAbs(dst []byte, i int) []byte {
	e := &l.es[i]
	return l.appendRel(append(append(dst, l.start...), '/'), e.d.path, e.name)
}

// SnapshotKey identifies the snapshot the listing reads
// (walk.Files): listings of the same cached order, from the
// same start, have equal keys, and a changed table makes a new order. The
// key holds the order's array, so its address is not reused while a key
// lives.
func (l *listing) SnapshotKey() any {
	if len(l.es) == 0 {
		return nil
	}
	return snapshotKey{first: &l.es[0], n: len(l.es), start: l.start}
}

type snapshotKey struct {
	first *entry
	n     int
	start string
}

// Version identifies the state of the table the listing was taken in. Two
// listings with equal versions (==) were taken with no change between
// them: a listing reads and applies every event the kernel queued before
// it, and every event counts as a change, even a write that leaves a
// file's size and time as they were. So files of such listings hold what
// they held when the first was taken, as far as the table can tell (a
// write through a hard link from outside the tree is not seen, as the
// table never sees it). Listings of different tables never have equal
// versions.
func (l *listing) Version() any { return l.version }

// Identity returns the i-th file's size and modification time (ns).
func (l *listing) Identity(i int) (size, mtime int64) {
	e := &l.es[i]
	return e.size, e.mtime
}

// appendRel appends the path below start of the file name in the
// directory dir (a path below the root).
func (l *listing) appendRel(buf []byte, dir, name string) []byte {
	if len(dir) > l.skip {
		buf = append(append(buf, dir[l.skip:]...), '/')
	}
	return append(buf, name...)
}

// pruned returns the files below n in directories dir accepts (asked with
// their path below n), newest first, ties in path order.
func pruned(n *dirNode, dir func(rel string) bool) []ref {
	var refs []ref
	var visit func(d *dirNode, rel string)
	visit = func(d *dirNode, rel string) {
		fi, di := 0, 0
		for fi < len(d.files) || di < len(d.dirs) {
			if di == len(d.dirs) || (fi < len(d.files) && fileDirCmp(d.files[fi].name, d.dirs[di].name) < 0) {
				refs = append(refs, ref{mtime: d.files[fi].mtime, d: d, i: int32(fi), pos: int32(len(refs))})
				fi++
				continue
			}
			c := d.dirs[di]
			di++
			if crel := joinRel(rel, c.name); dir(crel) {
				visit(c, crel)
			}
		}
	}
	visit(n, "")
	sortRefs(refs)
	return refs
}

// sortRefs sorts refs, which come in pos order, newest first, ties by
// pos. A stable sort by time alone gives that order: a least significant
// digit radix sort of the times, one pass per byte in which they differ
// (none at all in a tree whose files share one time, as an extracted
// archive's do).
func sortRefs(refs []ref) {
	if len(refs) < 2 {
		return
	}
	var counts [8][256]int
	for _, r := range refs {
		k := newestFirstKey(r.mtime)
		for b := range 8 {
			counts[b][byte(k>>(8*b))]++
		}
	}
	src, dst := refs, []ref(nil)
	for b := range 8 {
		c := &counts[b]
		if c[byte(newestFirstKey(src[0].mtime)>>(8*b))] == len(src) {
			continue // every time has this byte
		}
		if dst == nil {
			dst = make([]ref, len(refs))
		}
		at := 0
		for i, n := range c {
			c[i], at = at, at+n
		}
		for _, r := range src {
			k := byte(newestFirstKey(r.mtime) >> (8 * b))
			dst[c[k]] = r
			c[k]++
		}
		src, dst = dst, src
	}
	if &src[0] != &refs[0] {
		copy(refs, src)
	}
}

// newestFirstKey maps a time to a key whose ascending order is the times'
// descending order.
func newestFirstKey(mtime int64) uint64 { return uint64(mtime) ^ (1<<63 - 1) }

// replayExcluded hands q.Excluded the exclusions of every directory a walk
// of q.Start lists: n and the directories below it that q.Dir accepts.
func (t *Table) replayExcluded(n *dirNode, q Query) {
	// rel is built in one buffer and made a string only for a directory
	// that has exclusions or that q.Dir is asked of: most have neither, and
	// a string per directory was a tenth of an indexed grep's time.
	var buf []byte
	var visit func(d *dirNode)
	visit = func(d *dirNode) {
		if len(d.excl) > 0 {
			q.Excluded.Replay(q.Start, string(buf), d.excl, q.Keep)
		}
		for _, c := range d.dirs {
			at := len(buf)
			if at > 0 {
				buf = append(buf, '/')
			}
			buf = append(buf, c.name...)
			if q.Dir == nil || q.Dir(string(buf)) {
				visit(c)
			}
			buf = buf[:at]
		}
	}
	visit(n)
}
