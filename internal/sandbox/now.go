package sandbox

import (
	"os"
	"path/filepath"
	"slices"
)

// Now returns the policy as the disk is now, for one call: the roots' .git
// as they are (a repository a command made since initialize, with its
// hooks and config, is protected: withGitDirs) and the targets of the deny
// globs' symlinked matches denied too (~/.ssh/id_rsa -> ../keys/real
// denies ../keys/real, as a plain denied path's target is), and the denied
// files' identities noted (CheckOpened). Every file tool
// call and every command's setup judges by it. Its cost is an lstat of each
// root's .git and one directory read per glob (~/.ssh), never a walk.
func (r *Resolved) Now() *Resolved {
	if !r.Enforced() {
		return r
	}
	c := r.withGitDirs()
	c.DenyRead = slices.Clone(r.DenyRead)
	for _, t := range globTargets(r.DenyGlobs) {
		c.DenyRead = appendNew(c.DenyRead, t)
	}
	if r.ids != nil {
		r.ids.note(c.DenyRead, c.DenyGlobs)
	}
	return c
}

// globTargets returns where the symlinks among the globs' matches lead
// (every symlink resolved), so their targets are denied as well.
func globTargets(globs []string) []string {
	var out []string
	globMatches(globs, func(p string, e os.DirEntry) {
		if e.Type()&os.ModeSymlink == 0 {
			return
		}
		if t, err := filepath.EvalSymlinks(p); err == nil && !slices.Contains(out, t) {
			out = append(out, t)
		}
	})
	return out
}

// globMatches calls fn with each entry that a glob of globs matches now
// (one directory read per glob).
func globMatches(globs []string, fn func(path string, e os.DirEntry)) {
	for _, g := range globs {
		dir, pat := filepath.Dir(g), filepath.Base(g)
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if nameDenied(pat, e.Name()) {
				fn(filepath.Join(dir, e.Name()), e)
			}
		}
	}
}
