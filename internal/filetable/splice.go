package filetable

import (
	"slices"
	"sort"
	"strings"

	"github.com/toolrpc/toolrpc/walk"
)

// splice puts what scope s found (files, the kept files of every directory
// it listed) into the tree and moves the watches along: a watch of a
// directory that left the tree is removed unless the same directory (same
// inode, hence the same watch descriptor) came back elsewhere.
func (t *Table) splice(s *scope, files []walk.File) {
	groups := map[string][]fileEntry{}
	for _, f := range files {
		p, name := parentRel(f.Rel)
		groups[p] = append(groups[p], fileEntry{name: strings.Clone(name), size: f.Size, mtime: f.ModTime})
	}
	t.orderOK = false
	var dropped []*dirNode
	drop := func(n *dirNode) { n.each(func(d *dirNode) { dropped = append(dropped, d) }) }
	for rel, n := range s.full {
		n.files = exactFiles(groups[rel])
		n.excl = s.excl[rel]
		if rel == "" {
			continue
		}
		if pn, ok := s.full[parentDir(rel)]; ok {
			n.parent = pn
			pn.dirs = append(pn.dirs, n)
		}
	}
	for _, n := range s.full {
		sortNodes(n.dirs)
		n.dirs = slices.Clip(n.dirs)
	}
	if s.all {
		if t.top != nil {
			drop(t.top)
		}
		t.top = s.full[""]
	} else {
		dropped = t.spliceScoped(s, groups, dropped)
	}
	t.moveWatches(s, dropped)
}

// spliceScoped links the new subtrees of a scope without all and refreshes
// its relisted directories; it returns dropped extended by what left.
func (t *Table) spliceScoped(s *scope, groups map[string][]fileEntry, dropped []*dirNode) []*dirNode {
	drop := func(n *dirNode) { n.each(func(d *dirNode) { dropped = append(dropped, d) }) }
	for rel, n := range s.full {
		p := parentDir(rel)
		if _, ok := s.full[p]; ok {
			continue
		}
		pn := s.relist[p]
		if old := s.subtree[rel]; old != nil {
			pn = old.parent
		}
		if pn == nil {
			continue // cannot happen: a top full dir is a subtree root or new below a relisted dir
		}
		n.parent = pn
		if old := pn.child(n.name); old != nil {
			drop(old)
			pn.detach(old)
		}
		pn.insert(n)
	}
	for rel, old := range s.subtree {
		if !s.present[rel] && old.parent != nil {
			old.parent.detach(old)
			drop(old)
		}
	}
	for rel, n := range s.relist {
		if rel != "" && !s.present[rel] {
			if n.parent != nil {
				n.parent.detach(n)
			}
			drop(n)
			continue
		}
		n.files = exactFiles(groups[rel])
		n.excl = s.excl[rel]
		n.print = s.printed[rel]
		kept := n.dirs[:0]
		for _, c := range n.dirs {
			if s.present[joinRel(rel, c.name)] {
				kept = append(kept, c)
			} else {
				drop(c)
			}
		}
		clear(n.dirs[len(kept):])
		n.dirs = kept
	}
	return dropped
}

// moveWatches keeps byWD in step with the tree after a splice.
func (t *Table) moveWatches(s *scope, dropped []*dirNode) {
	for _, d := range dropped {
		if d.wd >= 0 && t.byWD[d.wd] == d {
			delete(t.byWD, d.wd)
		}
	}
	for _, n := range s.full {
		if n.wd >= 0 {
			t.byWD[n.wd] = n
		}
	}
	for _, d := range dropped {
		if d.wd >= 0 && t.byWD[d.wd] == nil {
			t.w.rm(d.wd)
		}
	}
}

// insert adds c to d's subdirectories in name order.
func (d *dirNode) insert(c *dirNode) {
	i := sort.Search(len(d.dirs), func(i int) bool { return dirCmp(d.dirs[i].name, c.name) >= 0 })
	d.dirs = slices.Insert(d.dirs, i, c)
}

// exactFiles returns fs sorted by name in a slice of exactly its length.
func exactFiles(fs []fileEntry) []fileEntry {
	if len(fs) == 0 {
		return nil
	}
	out := make([]fileEntry, len(fs))
	copy(out, fs)
	sortFiles(out)
	return out
}

// parentDir returns the directory part of rel ("" at the top).
func parentDir(rel string) string {
	p, _ := parentRel(rel)
	return p
}
