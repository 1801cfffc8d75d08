package filetable

import (
	"slices"
	"sort"
	"strings"

	"github.com/toolrpc/toolrpc/walk"
)

// dirNode is one directory the walk keeps. A file costs one fileEntry (32
// bytes) plus its name; a directory one dirNode plus one watch.
type dirNode struct {
	path   string // slash-separated path below the root, "" for the root
	name   string // last component of path
	parent *dirNode
	wd     int32            // inotify watch, -1 when the directory could not be watched
	repo   bool             // holds a .git entry: a nested repository starts here
	lazy   bool             // loaded without its watch: watchLoaded adds it
	files  []fileEntry      // sorted by name
	dirs   []*dirNode       // sorted by name + "/" (see dirCmp)
	excl   []walk.Exclusion // entries the ignore rules excluded from its listing
	// print is what the directory's stamps were when it was last listed,
	// taken after its watch and before the listing; a save writes it as
	// it is, so a change the table missed since shows to the next server.
	print dirPrint
}

// fileEntry is one regular file the walk keeps.
type fileEntry struct {
	name  string
	size  int64
	mtime int64 // Unix nanoseconds
}

// rel returns the directory's slash-separated path below the root ("" for
// the root).
func (d *dirNode) rel() string { return d.path }

// child returns the subdirectory called name, or nil.
func (d *dirNode) child(name string) *dirNode {
	i := sort.Search(len(d.dirs), func(i int) bool { return dirCmp(d.dirs[i].name, name) >= 0 })
	if i < len(d.dirs) && d.dirs[i].name == name {
		return d.dirs[i]
	}
	return nil
}

// file returns the index of the file called name, or -1.
func (d *dirNode) file(name string) int {
	i := sort.Search(len(d.files), func(i int) bool { return d.files[i].name >= name })
	if i < len(d.files) && d.files[i].name == name {
		return i
	}
	return -1
}

// detach removes c from d's subdirectories (no-op when it is not one).
func (d *dirNode) detach(c *dirNode) {
	for i, x := range d.dirs {
		if x == c {
			d.dirs = append(d.dirs[:i], d.dirs[i+1:]...)
			return
		}
	}
}

// each calls fn for d and every directory below it.
func (d *dirNode) each(fn func(*dirNode)) {
	fn(d)
	for _, c := range d.dirs {
		c.each(fn)
	}
}

// sortNodes orders subdirectories by name + "/", the order in which their
// contents' paths sort.
func sortNodes(ds []*dirNode) {
	slices.SortFunc(ds, func(a, b *dirNode) int { return dirCmp(a.name, b.name) })
}

// dirCmp compares a+"/" with b+"/" (names hold no slash).
func dirCmp(a, b string) int {
	n := min(len(a), len(b))
	if r := strings.Compare(a[:n], b[:n]); r != 0 {
		return r
	}
	switch {
	case len(a) == len(b):
		return 0
	case len(a) == n: // a+"/" against b's next byte
		return cmpByte('/', b[n])
	default:
		return cmpByte(a[n], '/')
	}
}

// fileDirCmp compares the file name f with the directory name d + "/": the
// order of f's path and the paths below d.
func fileDirCmp(f, d string) int {
	n := min(len(f), len(d))
	if r := strings.Compare(f[:n], d[:n]); r != 0 {
		return r
	}
	if len(f) == n {
		return -1 // f is a prefix of d + "/"
	}
	return cmpByte(f[n], '/')
}

func cmpByte(a, b byte) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// sortFiles orders files by name.
func sortFiles(fs []fileEntry) {
	slices.SortFunc(fs, func(a, b fileEntry) int { return strings.Compare(a.name, b.name) })
}

// parentRel returns the directory part of a slash-separated rel path ("" at
// the top) and its last component.
func parentRel(rel string) (string, string) {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return "", rel
	}
	return rel[:i], rel[i+1:]
}

// joinRel joins a directory rel path and a name.
func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
