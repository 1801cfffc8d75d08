package walk

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Ignore files a walk reads in every directory. Later kinds take precedence,
// as in ripgrep: a .ignore rule beats a .gitignore rule, which beats
// .git/info/exclude.
const (
	gitignoreName = ".gitignore"
	ignoreName    = ".ignore"
)

// skipDirs are never entered by a walk.
var skipDirs = map[string]bool{".git": true, ".hg": true, ".svn": true}

// rule is one ignore pattern with what go-git's matcher does not keep: its
// directory (domain) and whether it names a path (contains a slash).
//
// go-git's Pattern.Match also reports a match when only an ancestor of the
// path (a pattern without a slash) or a prefix of it (a pattern with one)
// matches. A walk never enters an excluded directory, so only the verdict on
// the path itself matters; rule.match asks exactly that question.
type rule struct {
	pat        gitignore.Pattern
	domain     []string
	glob       bool // the pattern contains a slash before its end
	insideOnly bool // the pattern ended in "/**": it matches what is below, not the directory
}

// match reports the rule's verdict on the path comps (components relative to
// the ignore base), which must lie below the rule's domain.
func (r *rule) match(comps []string, isDir bool) gitignore.MatchResult {
	if !r.glob {
		// Only the last component may match a slash-free pattern.
		probe := make([]string, 0, len(r.domain)+1)
		probe = append(append(probe, r.domain...), comps[len(comps)-1])
		return r.pat.Match(probe, isDir)
	}
	if r.insideOnly {
		// "a/**" matches everything strictly inside a.
		if len(comps) <= len(r.domain)+1 {
			return gitignore.NoMatch
		}
		return r.pat.Match(comps[:len(comps)-1], true)
	}
	res := r.pat.Match(comps, isDir)
	if res == gitignore.NoMatch || len(comps) <= len(r.domain)+1 {
		return res
	}
	// A match of the parent means go-git matched a prefix, not the path.
	if r.pat.Match(comps[:len(comps)-1], true) != gitignore.NoMatch {
		return gitignore.NoMatch
	}
	return res
}

// parseRules parses the content of one ignore file found in the directory
// whose components (relative to the ignore base) are domain.
func parseRules(data []byte, domain []string) []rule {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var out []rule
	for _, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimSuffix(raw, "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		if !strings.HasSuffix(line, `\ `) {
			line = strings.TrimRight(line, " ")
		}
		if line == "" || line == "!" {
			continue
		}
		// filepath.Match spells a negated class [^x]; gitignore also allows [!x].
		line = strings.ReplaceAll(line, "[!", "[^")
		body := strings.TrimPrefix(line, "!")
		body = strings.TrimSuffix(body, "/")
		r := rule{domain: append([]string(nil), domain...), glob: strings.Contains(body, "/")}
		if strings.HasSuffix(body, "/**") {
			// Match "a/**" as the directory pattern "/a" (anchored, since it
			// had a slash), then require the path to lie strictly below it.
			r.insideOnly = true
			neg := ""
			if strings.HasPrefix(line, "!") {
				neg, line = "!", line[1:]
			}
			line = strings.TrimSuffix(line, "/**")
			if line == "" || line == "**" {
				continue
			}
			if !strings.HasPrefix(line, "/") {
				line = "/" + line
			}
			line = neg + line
		}
		r.pat = gitignore.ParsePattern(line, domain)
		out = append(out, r)
	}
	return out
}

// ignoreSet is the ignore state of one directory: the rules of the ignore
// files of it and of its parents up to the base, in increasing precedence.
// It is immutable once built, so child directories without ignore files share
// their parent's set.
type ignoreSet struct {
	exclude []rule // .git/info/exclude of the base
	git     []rule // .gitignore files, base first
	ign     []rule // .ignore files, base first
}

// empty reports whether the set holds no rule.
func (s *ignoreSet) empty() bool {
	return len(s.exclude) == 0 && len(s.git) == 0 && len(s.ign) == 0
}

// ignored reports whether the path comps (relative to the ignore base) is
// excluded: the rule of highest precedence that matches decides.
func (s *ignoreSet) ignored(comps []string, isDir bool) bool {
	for _, rs := range [][]rule{s.ign, s.git, s.exclude} {
		for i := len(rs) - 1; i >= 0; i-- {
			switch rs[i].match(comps, isDir) {
			case gitignore.Exclude:
				return true
			case gitignore.Include:
				return false
			}
		}
	}
	return false
}

// with returns the set extended by the ignore files of the directory dir
// (components domain), or s itself when dir has none. has tells which of the
// two files the directory listing showed.
func (s *ignoreSet) with(dir string, domain []string, hasGit, hasIgnore bool) *ignoreSet {
	var git, ign []rule
	if hasGit {
		if data, err := os.ReadFile(filepath.Join(dir, gitignoreName)); err == nil {
			git = parseRules(data, domain)
		}
	}
	if hasIgnore {
		if data, err := os.ReadFile(filepath.Join(dir, ignoreName)); err == nil {
			ign = parseRules(data, domain)
		}
	}
	if len(git) == 0 && len(ign) == 0 {
		return s
	}
	n := &ignoreSet{exclude: s.exclude}
	n.git = append(append(make([]rule, 0, len(s.git)+len(git)), s.git...), git...)
	n.ign = append(append(make([]rule, 0, len(s.ign)+len(ign)), s.ign...), ign...)
	return n
}

// ignoreStart is where a walk's ignore state begins: the base directory the
// rules are relative to, the set that applies to the start directory's
// entries before its own ignore files are read, and the start's components.
type ignoreStart struct {
	base  string
	set   *ignoreSet
	comps []string
}

// repoRoot returns the nearest directory at or above dir holding a .git entry,
// or "" when there is none up to the file system root.
func repoRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		p := filepath.Dir(d)
		if p == d {
			return ""
		}
		d = p
	}
}

// startIgnores computes the ignore state for a walk of the directory start,
// whose session root is boundary.
//
// The rules of start's parents are those of the ignore files between the
// repository root (the nearest directory above holding .git, whose
// .git/info/exclude also applies) and start; outside a repository, the
// parents up to boundary, so no ignore file outside the session's roots is
// read. When start itself lies in a tree those rules ignore, the parents'
// rules are dropped (SPEC §3: an explicit path reaches ignored trees) and only
// ignore files at or below start apply.
func startIgnores(start, boundary string) ignoreStart {
	base := repoRoot(start)
	set := &ignoreSet{}
	if base != "" {
		if data, err := os.ReadFile(filepath.Join(base, ".git", "info", "exclude")); err == nil {
			set.exclude = parseRules(data, nil)
		}
	} else {
		base = boundary
		if !within(base, start) {
			base = start
		}
	}
	rel, err := filepath.Rel(base, start)
	if err != nil || rel == "." {
		return ignoreStart{base: start, set: set}
	}
	comps := strings.Split(filepath.ToSlash(rel), "/")
	dir := base
	for i := range comps {
		_, gErr := os.Lstat(filepath.Join(dir, gitignoreName))
		_, iErr := os.Lstat(filepath.Join(dir, ignoreName))
		set = set.with(dir, comps[:i], gErr == nil, iErr == nil)
		if set.ignored(comps[:i+1], true) {
			return ignoreStart{base: start, set: &ignoreSet{}}
		}
		dir = filepath.Join(dir, comps[i])
	}
	return ignoreStart{base: base, set: set, comps: comps}
}
