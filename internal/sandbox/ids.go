package sandbox

import (
	"os"
	"sync"
)

// fileID is a file's identity: its device and inode.
type fileID struct{ dev, ino uint64 }

// deniedIDs are the identities of the files and directories the policy
// denies, as seen at each Now (the deny list's entries, the globs'
// matches), kept for the session: a denied file a command renamed or
// hard-linked inside a writable root (mv secret notsecret) keeps its
// identity, so the file tools, which judge what they opened, still refuse
// it (SPEC §14). The set only grows.
type deniedIDs struct {
	mu    sync.Mutex
	ids   map[fileID]bool
	sizes map[int64]bool // the sizes the denied files had when seen
}

// note adds the identities of the paths that exist among paths and the
// globs' matches.
func (d *deniedIDs) note(paths, globs []string) {
	var found []fileID
	var sizes []int64
	add := func(p string) {
		if id, size, ok := statID(p); ok {
			found = append(found, id)
			sizes = append(sizes, size)
		}
	}
	for _, p := range paths {
		add(p)
	}
	globMatches(globs, func(p string, _ os.DirEntry) { add(p) })
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ids == nil {
		d.ids, d.sizes = map[fileID]bool{}, map[int64]bool{}
	}
	for i, id := range found {
		d.ids[id] = true
		d.sizes[sizes[i]] = true
	}
}

// sized reports that a denied file had this size when seen.
func (d *deniedIDs) sized(size int64) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.sizes[size]
}

// has reports that id is a denied file's.
func (d *deniedIDs) has(id fileID) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ids[id]
}

// empty reports that no denied file was seen.
func (d *deniedIDs) empty() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.ids) == 0
}

// CheckOpened returns nil when the policy lets the file tools read the
// file open as f (found at path), else a *Denial: f is a denied file under
// another name (renamed, or hard-linked, inside a writable root).
func (r *Resolved) CheckOpened(f *os.File, path string) error {
	if !r.Enforced() || r.ids == nil {
		return nil
	}
	id, _, ok := fdID(int(f.Fd()))
	if !ok || !r.ids.has(id) {
		return nil
	}
	return r.openedDenial(path)
}

// OpenedFilter returns the judge of grep's opened files (search.Query's
// Opened): false for a descriptor open on a denied file under another name.
// Only a file of a size a denied file had when seen costs an fstat (the
// walk knows every size): a grep keeps its speed. It returns nil when the
// policy denies no file it has seen.
func (r *Resolved) OpenedFilter() func(fd int, size int64) bool {
	if !r.Enforced() || r.ids == nil || r.ids.empty() {
		return nil
	}
	return func(fd int, size int64) bool {
		if !r.ids.sized(size) {
			return true
		}
		id, _, ok := fdID(fd)
		return !ok || !r.ids.has(id)
	}
}

// openedDenial is the denial of a read of a denied file reached by path.
func (r *Resolved) openedDenial(path string) error {
	return &Denial{Op: "read", Path: path, why: "it is a denied file under another name (" + r.denyNames() + ")",
		fix: "Only the host can lift it, by turning the sandbox off (sandbox.mode: off)"}
}
