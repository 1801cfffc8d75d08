package filetable

import (
	"slices"
	"unsafe"

	"github.com/toolrpc/toolrpc/walk"
)

// ref is one file of the table: d.files[i].
type ref struct {
	d   *dirNode
	i   int32
	pos int32 // rank of the file's path in byte order
}

// sortedOrder returns every file of the table newest first, ties in path
// order (walk.SortNewestFirst's order), recomputing it after a change;
// t.mu held.
//
// A traversal that merges each directory's files (by name) with its
// subdirectories (by name + "/") meets the paths in byte order, so the
// sort needs only compare times and ranks.
func (t *Table) sortedOrder() []ref {
	if t.orderOK {
		return t.order
	}
	order := t.order[:0]
	var visit func(d *dirNode)
	visit = func(d *dirNode) {
		fi, di := 0, 0
		for fi < len(d.files) || di < len(d.dirs) {
			if di == len(d.dirs) || (fi < len(d.files) && fileDirCmp(d.files[fi].name, d.dirs[di].name) < 0) {
				order = append(order, ref{d: d, i: int32(fi), pos: int32(len(order))})
				fi++
				continue
			}
			visit(d.dirs[di])
			di++
		}
	}
	visit(t.top)
	sortRefs(order)
	clear(order[len(order):cap(order)])
	t.order, t.orderOK = order, true
	return order
}

// collect lists the files below n (the directory start) in walk.Walk's
// order: from the cached order of the whole table, or, when dir prunes
// subdirectories (as walk.Options.Dir), from a traversal of the
// subdirectories dir accepts. keep sees rel and name in a scratch buffer: it
// must not retain them.
func (t *Table) collect(n *dirNode, start string, keep func(rel, name string) bool, dir func(rel string) bool) []walk.File {
	var refs []ref
	if dir == nil {
		refs = t.sortedOrder()
	} else {
		refs = pruned(n, dir)
	}
	var out []walk.File
	var buf []byte
	for _, r := range refs {
		d := r.d
		if dir == nil && n != t.top && !within(d.path, n.path) {
			continue
		}
		f := &d.files[r.i]
		// rel below start: d's path below n, then the name.
		dirPart := d.path
		if n != t.top {
			dirPart = dirPart[min(len(dirPart), len(n.path)+1):]
		}
		buf = buf[:0]
		if dirPart != "" {
			buf = append(append(buf, dirPart...), '/')
		}
		buf = append(buf, f.name...)
		if keep != nil {
			rel := unsafe.String(unsafe.SliceData(buf), len(buf))
			if !keep(rel, rel[len(rel)-len(f.name):]) {
				continue
			}
		}
		abs := start + "/" + string(buf)
		out = append(out, walk.File{Abs: abs, Rel: abs[len(start)+1:], ModTime: f.mtime, Size: f.size})
	}
	return out
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
				refs = append(refs, ref{d: d, i: int32(fi), pos: int32(len(refs))})
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

// sortRefs sorts refs newest first, ties by pos.
func sortRefs(refs []ref) {
	slices.SortFunc(refs, func(a, b ref) int {
		ma, mb := a.d.files[a.i].mtime, b.d.files[b.i].mtime
		switch {
		case ma > mb:
			return -1
		case ma < mb:
			return 1
		}
		return int(a.pos - b.pos)
	})
}

// within reports whether the directory path p is dir or lies below it.
func within(p, dir string) bool {
	return len(p) >= len(dir) && p[:len(dir)] == dir && (len(p) == len(dir) || p[len(dir)] == '/')
}
