package search

import (
	"context"
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/toolrpc/toolrpc/internal/cut"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/walk"
	"github.com/toolrpc/toolrpc/wire"
)

// CheckGlob validates a doublestar pattern: it must parse, and hold at most
// limits.GlobMaxBraceGroups brace groups. The error's text follows the name
// of the field that held the pattern.
func CheckGlob(pattern string) error {
	if !doublestar.ValidatePattern(pattern) {
		return fmt.Errorf("%q is not a valid doublestar pattern", pattern)
	}
	groups := 0
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++ // an escaped character is literal
		case '{':
			groups++
		}
	}
	if groups > limits.GlobMaxBraceGroups {
		return fmt.Errorf("has %d {…} groups; at most %d are allowed", groups, limits.GlobMaxBraceGroups)
	}
	return nil
}

// GlobFilter returns the walk filter of grep's glob: without "/" it matches
// the base name, else the path relative to the searched directory; "" keeps
// every file.
func GlobFilter(glob string) func(rel, name string) bool {
	if glob == "" {
		return nil
	}
	if !strings.Contains(glob, "/") {
		if suffix, ok := nameSuffix(glob); ok {
			return suffixMatch(glob, suffix, false)
		}
		return func(rel, name string) bool { ok, _ := doublestar.Match(glob, name); return ok }
	}
	return globMatch(glob)
}

// globMatch returns a filter matching the path relative to the searched
// directory against glob.
func globMatch(glob string) func(rel, name string) bool {
	if rest, ok := strings.CutPrefix(glob, "**/"); ok {
		if suffix, ok := nameSuffix(rest); ok {
			return suffixMatch(glob, suffix, true)
		}
	}
	return func(rel, name string) bool { ok, _ := doublestar.Match(glob, rel); return ok }
}

// nameSuffix reports whether glob is "*" followed by an ASCII literal
// without slashes or glob syntax, and returns the literal: such a glob
// matches exactly the names ending in it (an ASCII byte decodes as itself
// whatever precedes it).
func nameSuffix(glob string) (string, bool) {
	suffix, ok := strings.CutPrefix(glob, "*")
	if !ok || !ascii(suffix) || strings.ContainsAny(suffix, `*?[]{}\/`) {
		return "", false
	}
	return suffix, true
}

// suffixMatch is doublestar.Match(glob, rel or name) for a glob that is
// "*"+suffix, or "**/*"+suffix when onRel: a name ending in suffix matches.
// Names that are not plain ASCII are left to doublestar.
func suffixMatch(glob, suffix string, onRel bool) func(rel, name string) bool {
	return func(rel, name string) bool {
		if !strings.HasSuffix(name, suffix) {
			return false
		}
		if ascii(name) {
			return true
		}
		subject := name
		if onRel {
			subject = rel
		}
		ok, _ := doublestar.Match(glob, subject)
		return ok
	}
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// GlobDirs returns a walk.Options.Dir that prunes the directories a glob
// matched against relative paths cannot reach: those off the glob's leading
// literal directories (src/app/**/*.go reaches src and src/app and what lies
// below src/app only). It returns nil when nothing can be pruned: no "/" (the
// glob matches base names), or no literal leading directory.
func GlobDirs(glob string) func(rel string) bool {
	comps := strings.Split(glob, "/")
	var lit []string
	for _, c := range comps[:len(comps)-1] {
		if c == "" || c == "." || c == ".." || strings.ContainsAny(c, `*?[]{}\`) {
			break
		}
		lit = append(lit, c)
	}
	if len(lit) == 0 {
		return nil
	}
	prefix := strings.Join(lit, "/")
	return func(rel string) bool {
		// rel is an ancestor of the prefix, the prefix, or below it.
		if len(rel) <= len(prefix) {
			return prefix[:len(rel)] == rel && (len(rel) == len(prefix) || prefix[len(rel)] == '/')
		}
		return rel[:len(prefix)] == prefix && rel[len(prefix)] == '/'
	}
}

// Glob returns the files below start whose path relative to start matches
// pattern, newest first, with walk's ignore rules below boundary, listed by
// list (nil: walk.Walk); ex, when set, collects what those rules excluded
// (see IgnoredNotice).
func Glob(ctx context.Context, list Lister, pattern, start, boundary string, ex *walk.Excluded) (walk.Files, error) {
	return list.list(ctx, walk.Options{Start: start, Boundary: boundary, Excluded: ex, Dir: GlobDirs(pattern), Keep: globMatch(pattern)})
}

// GlobResult is one window of a glob's files (SPEC §5).
type GlobResult = wire.GlobResult

// GlobWindow shows limit of files from offset, named by display, as many as
// the result budget holds. A window that is not cut and shorter than limit
// says in its notice how many files ex saw excluded by ignore rules.
func GlobWindow(ctx context.Context, files walk.Files, ex *walk.Excluded, offset, limit int64, display func(abs string) string) GlobResult {
	res := GlobResult{Matches: []string{}}
	var budget cut.ResultBudget
	stopped := false
	for i := offset; i < int64(files.Len()) && int64(len(res.Matches)) < limit; i++ {
		d := display(files.At(int(i)).Abs)
		if stopped = !budget.Take(len(d) + cut.JSONStringOverheadBytes); stopped {
			break
		}
		res.Matches = append(res.Matches, d)
	}
	n := len(res.Matches)
	res.Count = n
	next := offset + int64(n)
	switch {
	case next >= int64(files.Len()) && int64(n) < limit:
		res.Notice = IgnoredNotice(ctx, ex, display, "matching files")
	case next >= int64(files.Len()):
	case stopped:
		res.Truncated = true
		res.Notice = budget.Notice(fmt.Sprintf("%d of %d files", n, files.Len()), fmt.Sprintf("offset=%d, or narrow the pattern/path", next))
	default:
		res.Truncated = true
		res.Notice = fmt.Sprintf("Showing %d of %d files (limit=%d). Next: offset=%d, or narrow the pattern/path.",
			n, files.Len(), limit, next)
	}
	return res
}
