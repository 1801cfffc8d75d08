package sandbox

import (
	"os"
	"time"
)

// stamp is what identifies one version of a protected path.
type stamp struct {
	exists bool
	mode   os.FileMode
	size   int64
	mtime  time.Time
	sys    any
}

// stampOf returns p's stamp: for a Tree path its identity and version, for
// an entry protected alone (the .git directory, whose entries git writes)
// its identity only.
func stampOf(p Protected) stamp {
	fi, err := os.Lstat(p.Path)
	if err != nil {
		return stamp{}
	}
	if !p.Tree {
		return stamp{exists: true, mode: fi.Mode().Type(), sys: identity(fi)}
	}
	return stamp{exists: true, mode: fi.Mode(), size: fi.Size(), mtime: fi.ModTime(), sys: identity(fi)}
}

// Watch closes the gap of a machine without a mount namespace after the
// fact: called before a command, it notes the identity of each protected
// path (a .git's hooks and config, the .git itself), and the function it
// returns names those that changed since (removed, replaced, renamed,
// written, or an entry made in a protected directory). With a mount
// namespace the kernel stops those changes and the function returns nil.
func (r *Resolved) Watch() func() []string {
	if r.Enforced() && r.Machine.MountNS {
		// The kernel stopped the changes; what the command added to a
		// repository's history is kept (keepHistory, through withGitDirs).
		return func() []string {
			r.withGitDirs()
			return nil
		}
	}
	if !r.Enforced() || len(r.Protect) == 0 {
		return func() []string { return nil }
	}
	r = r.withGitDirs() // what the command about to run is judged by
	before := make([]stamp, len(r.Protect))
	for i, p := range r.Protect {
		before[i] = stampOf(p)
	}
	return func() []string {
		var changed []string
		for i, p := range r.Protect {
			if stampOf(p) != before[i] {
				changed = append(changed, p.Path)
			}
		}
		return changed
	}
}
