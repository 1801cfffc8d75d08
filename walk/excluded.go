package walk

import (
	"context"
	"path/filepath"
	"sort"
	"sync"

	"github.com/toolrpc/toolrpc/internal/gitignore"
)

// Excluded collects what the ignore rules excluded during one Walk, so a
// search whose result is short can say so (SPEC §5). Walk records each
// excluded file (one the Keep filter would have passed) and each excluded
// directory; Count then counts the files below those directories.
type Excluded struct {
	mu    sync.Mutex
	files map[*gitignore.Rule]int // excluded files that passed Keep, by rule
	dirs  []excludedDir
	keep  func(rel, name string) bool
}

type excludedDir struct {
	abs, rel string
	rule     *gitignore.Rule
}

// Exclusion is one entry the ignore rules excluded from a directory's
// listing (see Options.Exclude).
type Exclusion struct {
	// Name is the entry's name in its directory.
	Name string
	// Dir is set for a directory.
	Dir bool
	// Rule is the rule that excluded it.
	Rule *gitignore.Rule
}

// Replay records the exclusions xs of the directory dirRel (relative to
// start) as a Walk from start with filter keep records them when it lists
// that directory: excluded files keep passes are counted by rule, excluded
// directories are kept for Count. A resident file table calls it for every
// directory such a Walk would list, instead of walking.
func (e *Excluded) Replay(start, dirRel string, xs []Exclusion, keep func(rel, name string) bool) {
	var ex exclusions
	for _, x := range xs {
		rel := joinRel(dirRel, x.Name)
		switch {
		case x.Dir:
			ex.dirs = append(ex.dirs, excludedDir{abs: start + "/" + rel, rel: rel, rule: x.Rule})
		case keep == nil || keep(rel, x.Name):
			if ex.files == nil {
				ex.files = map[*gitignore.Rule]int{}
			}
			ex.files[x.Rule]++
		}
	}
	e.mu.Lock()
	e.keep = keep
	e.mu.Unlock()
	e.record(ex.files, ex.dirs)
}

// ExcludedCount is what Count found.
type ExcludedCount struct {
	// Files is the number of excluded files the walk's Keep filter passes.
	Files int
	// Capped is set when counting stopped at the limit: Files is a lower bound.
	Capped bool
	// Rule is a rule that excluded the most of them (nil when Files is 0),
	// and RuleFiles how many it excluded.
	Rule      *gitignore.Rule
	RuleFiles int
}

// record notes the results of one directory's listing.
func (e *Excluded) record(files map[*gitignore.Rule]int, dirs []excludedDir) {
	if len(files) == 0 && len(dirs) == 0 {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.files == nil {
		e.files = map[*gitignore.Rule]int{}
	}
	for r, n := range files {
		e.files[r] += n
	}
	e.dirs = append(e.dirs, dirs...)
}

// Count counts the excluded files: those Walk saw directly, then those
// below each excluded directory in path order (directory symlinks not
// followed, .git, .hg and .svn not entered), reading at most maxEntries
// directory entries; when it stops there, Files is a lower bound and Capped
// is set. It is meant to run after the Walk, only when its caller reports
// the count.
func (e *Excluded) Count(ctx context.Context, maxEntries int) ExcludedCount {
	e.mu.Lock()
	defer e.mu.Unlock()
	byRule := make(map[*gitignore.Rule]int, len(e.files))
	total := 0
	for r, n := range e.files {
		byRule[r] += n
		total += n
	}
	sort.Slice(e.dirs, func(i, j int) bool { return e.dirs[i].rel < e.dirs[j].rel })
	c := &counter{keep: e.keep, buf: make([]byte, dirBufSize), budget: maxEntries}
	for _, d := range e.dirs {
		if c.capped || ctx.Err() != nil {
			break
		}
		n := c.below(ctx, d.abs, d.rel)
		byRule[d.rule] += n
		total += n
	}
	res := ExcludedCount{Files: total, Capped: c.capped}
	for r, n := range byRule {
		if n > res.RuleFiles || (n == res.RuleFiles && n > 0 && ruleBefore(r, res.Rule)) {
			res.Rule, res.RuleFiles = r, n
		}
	}
	return res
}

// ruleBefore orders rules by source and line, so ties pick the same rule.
func ruleBefore(a, b *gitignore.Rule) bool {
	if b == nil {
		return true
	}
	if a.Source != b.Source {
		return a.Source < b.Source
	}
	return a.Line < b.Line
}

// counter counts files below excluded directories within a budget of
// directory entries read.
type counter struct {
	keep   func(rel, name string) bool
	buf    []byte
	budget int
	capped bool
}

// below counts the files below the directory abs (rel: relative to the
// walk's start) that keep passes, until the budget runs out.
func (c *counter) below(ctx context.Context, abs, rel string) int {
	n := 0
	stack := []excludedDir{{abs: abs, rel: rel}}
	for len(stack) > 0 && ctx.Err() == nil {
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		dh, ok := openDir(d.abs)
		if !ok {
			continue
		}
		ents := dh.list(c.buf, nil)
		if len(ents) > c.budget {
			c.capped = true
			dh.close()
			return n
		}
		c.budget -= len(ents)
		for _, ent := range ents {
			typ := ent.typ
			if typ == typeUnknown {
				st, ok := dh.stat(ent.name)
				if !ok {
					continue
				}
				typ = st.typ
			}
			switch {
			case typ == typeDir && !skipDirs[ent.name]:
				stack = append(stack, excludedDir{abs: d.abs + string(filepath.Separator) + ent.name, rel: joinRel(d.rel, ent.name)})
			case typ == typeReg && ent.name != dotGit && (c.keep == nil || c.keep(joinRel(d.rel, ent.name), ent.name)):
				n++
			}
		}
		dh.close()
	}
	return n
}
