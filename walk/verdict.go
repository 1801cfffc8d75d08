package walk

import (
	"os"
	"path/filepath"

	"github.com/toolrpc/toolrpc/internal/gitignore"
)

// Ignores is the ignore state that governs the entries of one directory, for
// callers that keep their own view of a tree (a file table updated from
// filesystem events) and need Walk's verdicts one entry at a time. It is
// immutable and safe for concurrent use.
type Ignores struct {
	dir string
	set *ignoreSet
}

// IgnoresFor returns the state for the entries of dir (absolute,
// symlink-evaluated) when a walk starts at dir in the session root
// boundary: exactly the rules Walk applies to dir's entries, dir's own
// ignore files and SPEC §3's explicit-path rule included.
func IgnoresFor(dir, boundary string) *Ignores {
	return startIgnores(dir, boundary).entries(dir)
}

// Child returns the state for the entries of the subdirectory name, which
// the caller has found not ignored (Walk never enters an ignored one).
func (ig *Ignores) Child(name string) *Ignores {
	return ig.set.entries(ig.dir + "/" + name)
}

// Rule returns the rule that decides the entry name (isDir: a directory),
// or nil when no rule matches. The entry is ignored when the rule is
// non-nil and not a negation; Rule.String names it as `file:line pattern`.
func (ig *Ignores) Rule(name string, isDir bool) *gitignore.Rule {
	return ig.set.rule(ig.dir+"/"+name, isDir)
}

// Ignored reports whether Walk would skip the entry name.
func (ig *Ignores) Ignored(name string, isDir bool) bool {
	r := ig.Rule(name, isDir)
	return r != nil && !r.Negate
}

// entries returns the state for the entries of directory dir, governed by
// s: what Walk computes when it lists dir.
func (s *ignoreSet) entries(dir string) *Ignores {
	_, gErr := os.Lstat(filepath.Join(dir, gitignoreName))
	_, iErr := os.Lstat(filepath.Join(dir, ignoreName))
	_, dErr := os.Lstat(filepath.Join(dir, dotGit))
	return &Ignores{dir: dir, set: s.enter(dir, gErr == nil, iErr == nil, dErr == nil)}
}
