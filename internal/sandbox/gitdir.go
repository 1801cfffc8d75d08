package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolrpc/toolrpc/internal/sandbox/confine"
	"github.com/toolrpc/toolrpc/limits"
)

// What the host's next git runs lives in a git directory's hooks and config
// and in whatever those name; a command that can write any of them, or
// point git at another directory (commondir, a .git file's gitdir:),
// chooses code that runs outside the sandbox. gitWalk finds, for one root,
// every git directory git would use there (the root's, what its .git file
// and commondir name, each submodule's below modules/, each linked
// worktree's below worktrees/) and protects in each:
// the directory's own entry (pinned: it cannot be renamed or removed, and
// objects, refs, logs, index and HEAD stay writable so git works), the
// entries of limits.SandboxGitDirProtected (read-only), a core.hooksPath and
// the config files an include names when they lie in the writable set, and
// each submodule's .git file. It reads a few small files and directories,
// never the workspace's tree.

// HistoryDir is the directory inside a git directory where the sandbox
// keeps its history (keepHistory): read-only to commands.
const HistoryDir = "toolrpc-history"

// gitWalk is the walk of one root's git directories.
type gitWalk struct {
	r    *Resolved
	root string
	make bool     // make the placeholders of missing entries (a mount namespace binds them)
	seen []string // git directories seen, at most limits.SandboxGitDirs
}

// protectGit protects root's git directories in r; with mk it first makes
// the missing entries that must be read-only (placeholders).
func (r *Resolved) protectGit(root string, mk bool) {
	dotgit := filepath.Join(root, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil {
		return
	}
	g := &gitWalk{r: r, root: root, make: mk}
	if fi.IsDir() {
		g.gitDir(dotgit, root)
		return
	}
	r.protect(dotgit, true)
	if gd := gitPointer(dotgit, "gitdir:", root); gd != "" {
		g.gitDir(gd, root)
	}
}

// gitDir protects the git directory gd, whose work tree is worktree, and
// the git directories it names.
func (g *gitWalk) gitDir(gd, worktree string) {
	if len(g.seen) >= limits.SandboxGitDirs || slices.Contains(g.seen, gd) {
		return
	}
	g.seen = append(g.seen, gd)
	r := g.r
	r.protect(gd, false)
	if !r.allowsWrite(gd) {
		r.Writable = appendNew(r.Writable, gd) // a worktree's gitdir in another repository: git writes there
	}
	for _, name := range limits.SandboxGitDirProtected() {
		p := filepath.Join(gd, name)
		if _, err := os.Lstat(p); err != nil && g.make {
			switch name {
			case "hooks":
				makePlaceholder(p, true, "")
			case "commondir":
				// git reads an existing commondir as a redirection: "."
				// names the directory itself, so git behaves as without one.
				makePlaceholder(p, false, ".\n")
			case "config.worktree":
				makePlaceholder(p, false, "")
			}
		}
		r.protect(p, true)
	}
	if g.make {
		keepHistory(gd)
	}
	r.protect(filepath.Join(gd, HistoryDir), true)
	if cd := gitPointer(filepath.Join(gd, "commondir"), "", gd); cd != "" && cd != gd {
		g.gitDir(cd, worktree)
	}
	for _, cf := range []string{filepath.Join(gd, "config"), filepath.Join(gd, "config.worktree")} {
		g.config(cf, worktree)
	}
	g.modules(filepath.Join(gd, "modules"), 0)
	g.worktrees(filepath.Join(gd, "worktrees"))
}

// worktrees protects the git directory of each linked worktree below dir (a
// gitdir's worktrees/) as a git directory: its commondir and
// config.worktree read-only, its entry pinned. worktrees/ itself stays
// writable, so that git worktree add works.
func (g *gitWalk) worktrees(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.IsDir() {
			g.gitDir(filepath.Join(dir, e.Name()), "")
		}
	}
}

// config protects what the config file cf names that git runs or reads as
// config: core.hooksPath (relative to worktree) and include paths (relative
// to cf's directory), where they lie in the writable set.
func (g *gitWalk) config(cf, worktree string) {
	b, err := os.ReadFile(cf)
	if err != nil {
		return
	}
	vals := parseGitConfig(string(b))
	for _, hp := range vals["core.hookspath"] {
		if p := g.path(hp, worktree); p != "" {
			if _, err := os.Lstat(p); err != nil && g.make {
				g.r.makeDirs(p)
			}
			g.r.protect(p, true)
		}
	}
	for _, inc := range append(vals["include.path"], vals["includeif.path"]...) {
		if p := g.path(inc, filepath.Dir(cf)); p != "" {
			if _, err := os.Lstat(p); err != nil && g.make {
				g.r.makeDirs(filepath.Dir(p))
				makePlaceholder(p, false, "")
			}
			g.r.protect(p, true)
		}
	}
}

// path resolves a path a config names (relative to dir, or "~/") to a path
// in the writable set, or "".
func (g *gitWalk) path(v, dir string) string {
	switch {
	case v == "":
		return ""
	case strings.HasPrefix(v, "~/"):
		home, _ := os.UserHomeDir()
		if home == "" {
			return ""
		}
		v = filepath.Join(home, v[2:])
	case !filepath.IsAbs(v):
		v = filepath.Join(dir, v)
	}
	if p := canonical(v); p != "" && g.r.allowsWrite(p) {
		return p
	}
	return ""
}

// modules protects each submodule's git directory below dir (a gitdir's
// modules/; a submodule's name may hold slashes, so a directory without
// HEAD is looked into, depth levels down at most) and its .git file.
func (g *gitWalk) modules(dir string, depth int) {
	ents, err := os.ReadDir(dir)
	if err != nil || depth > 4 {
		return
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		d := filepath.Join(dir, e.Name())
		if _, err := os.Lstat(filepath.Join(d, "HEAD")); err != nil {
			g.modules(d, depth+1)
			continue
		}
		wt := ""
		if b, err := os.ReadFile(filepath.Join(d, "config")); err == nil {
			if v := parseGitConfig(string(b))["core.worktree"]; len(v) > 0 {
				wt = g.path(v[len(v)-1], d)
			}
		}
		g.gitDir(d, wt)
		if wt == "" {
			continue
		}
		if fi, err := os.Lstat(filepath.Join(wt, ".git")); err == nil && !fi.IsDir() {
			g.r.protect(filepath.Join(wt, ".git"), true)
		}
	}
}

// gitPointer reads the path the file names after prefix ("gitdir:" in a
// .git file, "" in commondir), relative to dir unless absolute, resolved;
// "" when there is none.
func gitPointer(file, prefix, dir string) string {
	b, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), prefix)
	if target = strings.TrimSpace(target); !ok || target == "" {
		return ""
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	return canonical(target)
}

// protect adds path to r's protected paths (tree: all below it too).
func (r *Resolved) protect(path string, tree bool) {
	r.Protect = confine.AppendProtected(r.Protect, Protected{Path: path, Tree: tree})
}

// rootOf returns the root path lies strictly below, or "".
func (r *Resolved) rootOf(path string) string {
	for _, root := range r.Roots {
		if path != root && within(path, root) {
			return root
		}
	}
	return ""
}

// makeDirs makes the missing directories of dir below its root, as
// placeholders.
func (r *Resolved) makeDirs(dir string) {
	root := r.rootOf(dir)
	if root == "" {
		return
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return
	}
	p := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, part)
		if _, err := os.Lstat(p); err != nil && !makePlaceholder(p, true, "") {
			return
		}
	}
}

// pinAncestors pins each directory between a root and a protected path in
// it: a mount point cannot be renamed or removed, so renaming a parent
// away (mv .claude .c-old) cannot free the protected name.
func (r *Resolved) pinAncestors() {
	for _, p := range append([]Protected(nil), r.Protect...) {
		root := r.rootOf(p.Path)
		if root == "" {
			continue
		}
		for d := filepath.Dir(p.Path); d != root && within(d, root); d = filepath.Dir(d) {
			r.Protect = confine.AppendProtected(r.Protect, Protected{Path: d})
		}
	}
}

// protectMissing protects path, a host's protect entry that does not exist:
// a command must not make it. Its missing parent directories are made as
// placeholders (with mk) and its parent is made read-only, unless the
// parent is a root; then the path itself is made, empty, as a read-only
// placeholder.
func (r *Resolved) protectMissing(path string, mk bool) {
	r.protect(path, true)
	root := r.rootOf(path)
	if root == "" {
		return
	}
	parent := filepath.Dir(path)
	if parent != root {
		if mk {
			r.makeDirs(parent)
		}
		r.protect(parent, true)
		return
	}
	if mk {
		makePlaceholder(path, false, "")
	}
}

// parseGitConfig returns the values of a git config file's text by key,
// "section.key" lower-cased, a subsection dropped ("includeIf.X.path" is
// "includeif.path"). It reads what git writes: [section] and
// [section "sub"] headers, key = value lines, quotes, # and ; comments, and
// backslash escapes; it never fails (a line it cannot read is skipped).
func parseGitConfig(text string) map[string][]string {
	out := map[string][]string{}
	section := ""
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				section = ""
				continue
			}
			head := strings.TrimSpace(line[1:end])
			if i := strings.IndexAny(head, " \t\""); i >= 0 {
				head = head[:i]
			} else if i := strings.IndexByte(head, '.'); i >= 0 {
				head = head[:i]
			}
			section = strings.ToLower(head)
			line = strings.TrimSpace(line[end+1:])
			if line == "" {
				continue
			}
		}
		if section == "" {
			continue
		}
		key, value, _ := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		if key == "" {
			continue
		}
		out[section+"."+key] = append(out[section+"."+key], configValue(value))
	}
	return out
}

// configValue undoes a config value's quotes and escapes and drops its
// trailing comment.
func configValue(v string) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(v):
			i++
			switch v[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(v[i])
			}
		case (c == '#' || c == ';') && !quoted:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// gitGaps are the gaps of the git protection on this machine (Linux), in
// plain words.
func (r *Resolved) gitGaps() []string {
	gaps := []string{"a nested git repository that is not a root's and not a submodule (vendor/lib/.git) is " +
		"not protected unless the host names it in sandbox.protect: finding one would need a walk of the workspace"}
	if !r.Machine.MountNS {
		return append(gaps, "a repository's history is not kept out of the commands' reach (no mount namespace), "+
			"and a root under /tmp that must stay read-only (an external root, or any root in read-only mode) is writable")
	}
	return append(gaps, "a repository's history is kept (.git/"+HistoryDir+") as of each command's start and end: "+
		"what one command both commits and deletes is lost")
}
