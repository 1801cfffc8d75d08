package sandbox

import (
	"path/filepath"
	"strings"
)

// ListFilter drops the files and directories of a walk that the policy
// denies to read, so that grep and glob never show, count or name them
// (SPEC §14). Its methods take the walk's slash-separated Rel paths below the
// start it was made for, allocate nothing, and may be called concurrently.
type ListFilter struct {
	trees []string  // denied paths below the start, relative to it
	globs []relGlob // denied names below the start
}

type relGlob struct {
	dir string // relative to the start, "" for the start itself
	pat string
}

// ListFilter returns the filter of a walk below start (absolute, symlinks
// resolved), or nil when the policy denies nothing below it, which is the
// common case and costs a walk nothing. A start that is itself denied is
// CheckRead's to refuse.
func (r *Resolved) ListFilter(start string) *ListFilter {
	if !r.Enforced() {
		return nil
	}
	start = filepath.Clean(start)
	var trees []string
	var globs []relGlob
	for _, d := range r.denyReadNow() {
		if rel, ok := below(d, start); ok {
			trees = append(trees, rel)
		}
	}
	for _, g := range r.DenyGlobs {
		dir := filepath.Dir(g)
		rel, ok := below(dir, start)
		if !ok && dir != start {
			continue
		}
		globs = append(globs, relGlob{dir: rel, pat: filepath.Base(g)})
	}
	if len(trees) == 0 && len(globs) == 0 {
		return nil
	}
	return &ListFilter{trees: trees, globs: globs}
}

// below returns path relative to start, slash-separated, when path is
// strictly below start.
func below(path, start string) (string, bool) {
	if path == start || !within(path, start) {
		return "", false
	}
	rel := path[len(start):]
	if start != string(filepath.Separator) {
		rel = rel[1:]
	}
	return filepath.ToSlash(rel), true
}

// Keep reports whether the file rel may be listed (walk.Options.Keep's
// signature; name is unused).
func (f *ListFilter) Keep(rel, _ string) bool { return !f.denies(rel) }

// Dir reports whether the directory rel may be listed (walk.Options.Dir).
func (f *ListFilter) Dir(rel string) bool { return !f.denies(rel) }

// denies reports that rel is, or is below, a denied path.
func (f *ListFilter) denies(rel string) bool {
	for _, t := range f.trees {
		if rel == t || len(rel) > len(t) && rel[len(t)] == '/' && rel[:len(t)] == t {
			return true
		}
	}
	for _, g := range f.globs {
		rest := rel
		if g.dir != "" {
			if len(rel) <= len(g.dir) || rel[len(g.dir)] != '/' || rel[:len(g.dir)] != g.dir {
				continue
			}
			rest = rel[len(g.dir)+1:]
		}
		name, _, _ := strings.Cut(rest, "/")
		if nameDenied(g.pat, name) {
			return true
		}
	}
	return false
}
