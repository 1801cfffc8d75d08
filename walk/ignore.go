package walk

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolrpc/toolrpc/internal/gitignore"
	"github.com/toolrpc/toolrpc/internal/roots"
)

// Ignore files a walk reads in every directory. Later kinds take precedence,
// as in ripgrep: a .ignore rule beats a .gitignore rule, which beats
// .git/info/exclude, which beats the global excludes file.
const (
	gitignoreName = ".gitignore"
	ignoreName    = ".ignore"
	dotGit        = ".git"
)

// skipDirs are never entered by a walk.
var skipDirs = map[string]bool{".git": true, ".hg": true, ".svn": true}

// layer is one compiled ignore file and the directory its patterns are
// relative to.
type layer struct {
	m   *gitignore.Matcher
	off int // length of that directory's absolute path plus its slash
}

func newLayer(m *gitignore.Matcher, dir string) layer {
	return layer{m: m, off: len(strings.TrimRight(dir, "/"+string(filepath.Separator))) + 1}
}

// match returns the last rule of the layer matching the absolute path abs,
// which lies below the layer's directory.
func (l layer) match(abs string, isDir bool) *gitignore.Rule {
	return l.matchSep(abs, isDir, filepath.Separator)
}

// matchSep is match for paths whose separator is sep as well as '/'.
// Patterns know only '/': on Windows, where abs holds '\', the path below
// the layer's directory is matched with its separators turned into '/', or
// negations and patterns of more than one segment never match (issue 34 C).
func (l layer) matchSep(abs string, isDir bool, sep byte) *gitignore.Rule {
	if l.m == nil {
		return nil
	}
	rel := abs[l.off:]
	if sep != '/' {
		rel = strings.ReplaceAll(rel, string(sep), "/")
	}
	return l.m.Match(rel, isDir)
}

// ignoreSet is the ignore state of one directory's entries: the global
// excludes file and the exclude file of the scope (the repository, or the
// walk's base outside one), and the ignore files of the directory and its
// parents up to the scope's root, in increasing precedence. It is immutable
// once built, so child directories without ignore files share their
// parent's set.
type ignoreSet struct {
	root    string // the scope's root directory; "" for an explicit path's scope
	global  *gitignore.Matcher
	globalL layer // global, relative to root
	exclude layer // the repository's info/exclude
	git     []layer
	ign     []layer
}

// newScope returns the set of a scope rooted at root: a repository's work
// tree when repo is set (its exclude file applies), else a plain directory.
func newScope(root string, repo bool, global *gitignore.Matcher) *ignoreSet {
	s := &ignoreSet{root: root, global: global}
	if global != nil && root != "" {
		s.globalL = newLayer(global, root)
	}
	if repo {
		if path := gitignore.ExcludeFile(root); path != "" {
			if data, ok := readIgnoreFile(path, false); ok {
				s.exclude = newLayer(gitignore.Compile(path, data), root)
			}
		}
	}
	return s
}

// empty reports whether the set holds no rule.
func (s *ignoreSet) empty() bool {
	return s.globalL.m == nil && s.exclude.m == nil && len(s.git) == 0 && len(s.ign) == 0
}

// rule returns the rule that decides the absolute path abs (below the
// set's directory), or nil when none matches.
func (s *ignoreSet) rule(abs string, isDir bool) *gitignore.Rule {
	for i := len(s.ign) - 1; i >= 0; i-- {
		if r := s.ign[i].match(abs, isDir); r != nil {
			return r
		}
	}
	for i := len(s.git) - 1; i >= 0; i-- {
		if r := s.git[i].match(abs, isDir); r != nil {
			return r
		}
	}
	if r := s.exclude.match(abs, isDir); r != nil {
		return r
	}
	return s.globalL.match(abs, isDir)
}

// ignored reports whether the ignore rules exclude the absolute path abs.
func (s *ignoreSet) ignored(abs string, isDir bool) bool {
	r := s.rule(abs, isDir)
	return r != nil && !r.Negate
}

// enter returns the set for the entries of directory dir, whose entries are
// governed by s: a directory holding .git (hasDotGit) other than the
// scope's root starts a new scope (SPEC §5), then dir's own ignore files
// apply. It returns s itself when nothing changes.
func (s *ignoreSet) enter(dir string, hasGit, hasIgnore, hasDotGit bool) *ignoreSet {
	if hasDotGit && dir != s.root {
		s = newScope(dir, true, s.global)
	}
	var git, ign *gitignore.Matcher
	if hasGit {
		git = compileIgnoreFile(dir + string(filepath.Separator) + gitignoreName)
	}
	if hasIgnore {
		ign = compileIgnoreFile(dir + string(filepath.Separator) + ignoreName)
	}
	if git == nil && ign == nil {
		return s
	}
	n := *s
	if git != nil {
		n.git = append(append(make([]layer, 0, len(s.git)+1), s.git...), newLayer(git, dir))
	}
	if ign != nil {
		n.ign = append(append(make([]layer, 0, len(s.ign)+1), s.ign...), newLayer(ign, dir))
	}
	return &n
}

// compileIgnoreFile compiles the in-tree ignore file at path, or returns
// nil when it is missing, empty of rules, a symlink or not a regular file.
func compileIgnoreFile(path string) *gitignore.Matcher {
	data, ok := readIgnoreFile(path, true)
	if !ok {
		return nil
	}
	m := gitignore.Compile(path, data)
	if m.Len() == 0 {
		return nil
	}
	return m
}

// readIgnoreFile reads a regular file without blocking on a FIFO; with
// noFollow, a symlink is refused (git's rule for ignore files in the tree).
func readIgnoreFile(path string, noFollow bool) ([]byte, bool) {
	f, err := openFile(path, noFollow)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	data, err := io.ReadAll(f)
	return data, err == nil
}

// globalExcludes compiles the user's global excludes file (SPEC §5);
// a relative path is relative to the work tree's top, root.
func globalExcludes(root string) *gitignore.Matcher {
	path := gitignore.GlobalExcludesFile(os.Getenv)
	if path == "" {
		return nil
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	data, ok := readIgnoreFile(path, false)
	if !ok {
		return nil
	}
	return gitignore.Compile(path, data)
}

// repoRoot returns the nearest directory at or above dir holding a .git entry,
// or "" when there is none up to the file system root.
func repoRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, dotGit)); err == nil {
			return d
		}
		p := filepath.Dir(d)
		if p == d {
			return ""
		}
		d = p
	}
}

// startIgnores computes the ignore set for the entries of the directory
// start, whose session root is boundary (before start's own ignore files,
// which the walk reads).
//
// The rules of start's parents are those of the ignore files between the
// scope's root and start: the scope is the nearest repository at or above
// start (whose info/exclude also applies), or outside a repository the
// parents up to boundary, so no ignore file outside the session's roots is
// read. When start itself lies in a tree those rules ignore, the parents'
// rules are dropped (SPEC §3: an explicit path reaches ignored trees) and
// only the global excludes file and ignore files at or below start apply.
func startIgnores(start, boundary string) *ignoreSet {
	root := repoRoot(start)
	repo := root != ""
	if !repo {
		root = boundary
		if !roots.Within(root, start) {
			root = start
		}
	}
	global := globalExcludes(root)
	set := newScope(root, repo, global)
	rel, err := filepath.Rel(root, start)
	if err != nil || rel == "." {
		return set
	}
	dir := root
	for _, c := range strings.Split(rel, string(filepath.Separator)) {
		_, gErr := os.Lstat(filepath.Join(dir, gitignoreName))
		_, iErr := os.Lstat(filepath.Join(dir, ignoreName))
		set = set.enter(dir, gErr == nil, iErr == nil, false)
		dir = filepath.Join(dir, c)
		if set.ignored(dir, true) {
			explicit := &ignoreSet{global: global}
			explicit.globalL = newLayer(global, start)
			return explicit
		}
	}
	return set
}
