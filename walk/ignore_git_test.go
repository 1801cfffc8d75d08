package walk

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// gitEnv is the environment of every oracle git: no system config, and home
// the directory the test made (so only its global excludes file exists).
func gitEnv(home string) []string {
	return append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+home, "XDG_CONFIG_HOME=",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
}

// gitIn runs git in dir with gitEnv(home) and returns its stdout.
func gitIn(t *testing.T, home, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv(home)
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		t.Fatalf("git %v in %s: %v: %s", args, dir, err, ee.Stderr)
	}
	require.NoError(t, err)
	return string(out)
}

// gitKept is the oracle: the files git does not ignore below root, which is
// the work tree of one repository, nested repositories (work trees below
// it, slash paths relative to root, parents first) included. `git ls-files
// --others` shows a nested repository as one "dir/" entry, absent when the
// parent ignores it; its files come from git run inside it.
func gitKept(t *testing.T, home, root string, nested ...string) []string {
	t.Helper()
	var kept []string
	listed := map[string]bool{"": true}
	for _, repo := range append([]string{""}, nested...) {
		if !listed[repo] {
			continue
		}
		out := gitIn(t, home, filepath.Join(root, filepath.FromSlash(repo)),
			"-c", "core.quotePath=off", "ls-files", "-z", "--others", "--exclude-standard")
		for _, p := range strings.Split(out, "\x00") {
			if repo != "" && p != "" {
				p = repo + "/" + p
			}
			if d, ok := strings.CutSuffix(p, "/"); ok {
				listed[d] = true
				continue
			}
			if p != "" {
				kept = append(kept, p)
			}
		}
	}
	sort.Strings(kept)
	return kept
}

// isolateHome points HOME at an empty directory (and unsets
// XDG_CONFIG_HOME), so the walk reads no global excludes file of the machine.
func isolateHome(t *testing.T) string {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	return home
}

// requireWalkIsGit walks root and compares the kept files with git's.
func requireWalkIsGit(t *testing.T, home, root string, nested ...string) []string {
	t.Helper()
	want := gitKept(t, home, root, nested...)
	require.Equal(t, want, walkRels(t, root, root))
	return want
}

// Bug 1: "**" glued to other characters is git's wildmatch "*" (no slash).
func TestIgnoreGluedDoubleStar(t *testing.T) {
	home := isolateHome(t)
	dir := t.TempDir()
	gitIn(t, home, dir, "init", "-q")
	writeTree(t, dir, map[string]string{
		".gitignore": "foo**/bar\nsrc/**.js\n",
		"foo/bar":    "", "foox/bar": "", "foo/x/bar": "",
		"src/a.js": "", "src/d/b.js": "", "src/a.ts": "",
	})
	kept := requireWalkIsGit(t, home, dir)
	require.NotContains(t, kept, "foo/bar")
	require.NotContains(t, kept, "src/a.js")
	require.Contains(t, kept, "src/d/b.js")
}

// Bug 2: a pattern ending in "/**/" keeps its directory-only meaning.
func TestIgnoreTrailingDoubleStarSlash(t *testing.T) {
	home := isolateHome(t)
	dir := t.TempDir()
	gitIn(t, home, dir, "init", "-q")
	writeTree(t, dir, map[string]string{
		".gitignore": "data/**\n!data/**/\nbuild/**/\n",
		"data/a.txt": "", "data/sub/b.txt": "",
		"build/a.txt": "", "build/sub/b.txt": "",
	})
	kept := requireWalkIsGit(t, home, dir)
	require.NotContains(t, kept, "data/a.txt")
	require.Contains(t, kept, "build/a.txt")
	require.NotContains(t, kept, "build/sub/b.txt")
}

// Bug 3: a parent .gitignore does not apply inside a nested repository, and
// bug 4: the nested repository's own .git/info/exclude does.
func TestIgnoreNestedRepository(t *testing.T) {
	home := isolateHome(t)
	dir := t.TempDir()
	gitIn(t, home, dir, "init", "-q")
	gitIn(t, home, dir, "init", "-q", "sub")
	writeTree(t, dir, map[string]string{
		".gitignore":             "foo\n*.log\n",
		"foo":                    "",
		"a.log":                  "",
		"sub/foo":                "",
		"sub/b.log":              "",
		"sub/only-here":          "",
		"sub/.git/info/exclude":  "only-here\n",
		"sub/deep/.gitignore":    "x\n",
		"sub/deep/x":             "",
		"sub/deep/y":             "",
		"plain/.gitignore":       "z\n",
		"plain/z":                "",
		"plain/inner/.gitignore": "",
	})
	kept := requireWalkIsGit(t, home, dir, "sub")
	require.Contains(t, kept, "sub/foo")
	require.NotContains(t, kept, "sub/only-here")
	// A walk started inside the nested repository agrees.
	require.Equal(t, []string{"b.log", "deep/.gitignore", "deep/y", "foo"}, walkRels(t, filepath.Join(dir, "sub"), dir))
}

// Bug 4: a linked worktree's exclude file lives in the main repository's git
// dir (commondir); its .git file is skipped like a .git directory.
func TestIgnoreLinkedWorktree(t *testing.T) {
	home := isolateHome(t)
	top := t.TempDir()
	main, wt := filepath.Join(top, "main"), filepath.Join(top, "wt")
	require.NoError(t, os.Mkdir(main, 0o755))
	gitIn(t, home, main, "init", "-q")
	writeTree(t, main, map[string]string{"README": "x\n"})
	gitIn(t, home, main, "add", "README")
	gitIn(t, home, main, "commit", "-q", "-m", "init")
	gitIn(t, home, main, "worktree", "add", "-q", wt)
	writeTree(t, main, map[string]string{".git/info/exclude": "excluded.txt\n"})
	writeTree(t, wt, map[string]string{"excluded.txt": "", "kept.txt": ""})
	want := append(gitKept(t, home, wt), "README") // tracked, so not in --others
	sort.Strings(want)
	require.Equal(t, want, walkRels(t, wt, wt))
	require.NotContains(t, want, ".git")
}

// Bug 4: a repository made with --separate-git-dir reads that dir's exclude.
func TestIgnoreSeparateGitDir(t *testing.T) {
	home := isolateHome(t)
	top := t.TempDir()
	repo, gd := filepath.Join(top, "repo"), filepath.Join(top, "gitdir")
	gitIn(t, home, top, "init", "-q", "--separate-git-dir="+gd, repo)
	writeTree(t, gd, map[string]string{"info/exclude": "secret\n"})
	writeTree(t, repo, map[string]string{"secret": "", "public": ""})
	kept := requireWalkIsGit(t, home, repo)
	require.Equal(t, []string{"public"}, kept)
}

// Bug 5: a symlinked .gitignore is not read (git refuses it in the tree).
func TestIgnoreSymlinkedIgnoreFileNotRead(t *testing.T) {
	home := isolateHome(t)
	top := t.TempDir()
	dir := filepath.Join(top, "ws")
	require.NoError(t, os.Mkdir(dir, 0o755))
	writeTree(t, top, map[string]string{"outside/rules": "*.txt\n"})
	gitIn(t, home, dir, "init", "-q")
	writeTree(t, dir, map[string]string{"a.txt": "", "sub/b.txt": ""})
	require.NoError(t, os.Symlink("../outside/rules", filepath.Join(dir, ".gitignore")))
	require.NoError(t, os.Symlink("../../outside/rules", filepath.Join(dir, "sub", ".gitignore")))
	kept := gitKept(t, home, dir)
	// git lists the symlinks themselves; a walk lists regular files only.
	require.Equal(t, []string{".gitignore", "a.txt", "sub/.gitignore", "sub/b.txt"}, kept)
	require.Equal(t, []string{"a.txt", "sub/b.txt"}, walkRels(t, dir, dir))
}

// Bug 6: backslashes before trailing spaces are counted.
func TestIgnoreEscapedTrailingSpaces(t *testing.T) {
	home := isolateHome(t)
	dir := t.TempDir()
	gitIn(t, home, dir, "init", "-q")
	writeTree(t, dir, map[string]string{
		".gitignore": "b\\  \nc\\\\ \nd\\ \\  \n",
		"b":          "", "b ": "", "b  ": "",
		"c": "", "c\\": "", "c\\ ": "",
		"d  ": "", "d   ": "", "d ": "",
	})
	kept := requireWalkIsGit(t, home, dir)
	require.NotContains(t, kept, "b ")
	require.Contains(t, kept, "b  ")
	require.NotContains(t, kept, "c\\")
}

// Bug 7: the global excludes file is read: core.excludesFile from the user's
// git config, else $XDG_CONFIG_HOME/git/ignore, else ~/.config/git/ignore.
func TestIgnoreGlobalExcludes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string // below home
		xdg   string            // XDG_CONFIG_HOME below home, "" = unset
	}{
		{"default", map[string]string{".config/git/ignore": "*.g\n"}, ""},
		{"xdg", map[string]string{"xdg/git/ignore": "*.g\n", ".config/git/ignore": "*.h\n"}, "xdg"},
		{"gitconfig", map[string]string{".gitconfig": "[core]\n\texcludesFile = ~/my ignore\n", "my ignore": "*.g\n/top.h\n"}, ""},
		{"xdg-config", map[string]string{"xdg/git/config": "[Core]\nexcludesfile = \"" + "rules\"\n", "xdg/git/ignore": "*.h\n"}, "xdg"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := isolateHome(t)
			writeTree(t, home, tc.files)
			env := gitEnv(home)
			if tc.xdg != "" {
				t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, tc.xdg))
				env = append(env, "XDG_CONFIG_HOME="+filepath.Join(home, tc.xdg))
			}
			dir := t.TempDir()
			// A relative excludesFile is relative to git's working directory.
			writeTree(t, dir, map[string]string{"rules": "*.g\n", "a.g": "", "a.h": "", "top.h": "", "d/top.h": "", "d/b.g": ""})
			gitIn(t, home, dir, "init", "-q")
			cmd := exec.Command("git", "-c", "core.quotePath=off", "ls-files", "-z", "--others", "--exclude-standard")
			cmd.Dir, cmd.Env = dir, env
			out, err := cmd.Output()
			require.NoError(t, err)
			want := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
			sort.Strings(want)
			require.NotContains(t, want, "a.g")
			require.Equal(t, want, walkRels(t, dir, dir))
		})
	}
}

// Ignores answers entry by entry what Walk decides for a whole tree.
func TestIgnoresMatchesWalk(t *testing.T) {
	isolateHome(t)
	dir := t.TempDir()
	writeTree(t, dir, trickyTree)
	writeTree(t, dir, map[string]string{"nested/.git/HEAD": "", "nested/b.bak": "", "b.bak": ""})
	var got []string
	var visit func(ig *Ignores, abs, rel string)
	visit = func(ig *Ignores, abs, rel string) {
		ents, err := os.ReadDir(abs)
		require.NoError(t, err)
		for _, e := range ents {
			if e.Name() == ".git" || ig.Ignored(e.Name(), e.IsDir()) {
				continue
			}
			if e.IsDir() {
				visit(ig.Child(e.Name()), filepath.Join(abs, e.Name()), rel+e.Name()+"/")
			} else {
				got = append(got, rel+e.Name())
			}
		}
	}
	visit(IgnoresFor(dir, dir), dir, "")
	sort.Strings(got)
	require.Contains(t, got, "nested/b.bak", "the parent's *.bak stops at the nested repository")
	require.NotContains(t, got, "b.bak")
	require.Equal(t, walkRels(t, dir, dir), got)
	r := IgnoresFor(dir, dir).Rule("x.log", false)
	require.Equal(t, filepath.Join(dir, ".gitignore")+":2 *.log", r.String())
}

// Excluded counts what git lists as ignored (`git ls-files --others
// --ignored --exclude-standard`), per rule as `git check-ignore -v` names it.
func TestExcludedCountMatchesGit(t *testing.T) {
	home := isolateHome(t)
	dir := t.TempDir()
	gitIn(t, home, dir, "init", "-q")
	writeTree(t, dir, trickyTree)
	for i := 0; i < 30; i++ {
		writeTree(t, dir, map[string]string{
			"build/deep/" + strconv.Itoa(i) + ".txt": "",
			"out/gen/" + strconv.Itoa(i) + ".md":     "",
		})
	}
	for _, keepTxt := range []bool{false, true} {
		var keep func(rel, name string) bool
		if keepTxt {
			keep = func(rel, name string) bool { return strings.HasSuffix(name, ".txt") }
		}
		var ignored []string
		for _, p := range strings.Split(gitIn(t, home, dir, "ls-files", "-z", "--others", "--ignored", "--exclude-standard"), "\x00") {
			if p != "" && (keep == nil || keep(p, filepath.Base(p))) {
				ignored = append(ignored, p)
			}
		}
		cmd := exec.Command("git", "check-ignore", "-v", "-z", "--stdin")
		cmd.Dir, cmd.Env = dir, gitEnv(home)
		cmd.Stdin = strings.NewReader(strings.Join(ignored, "\x00") + "\x00")
		out, err := cmd.Output()
		require.NoError(t, err)
		byRule := map[string]int{}
		f := strings.Split(string(out), "\x00")
		for i := 0; i+3 < len(f); i += 4 {
			byRule[f[i+1]]++ // by line number: every rule is in the root .gitignore
		}

		var ex Excluded
		_, err = Walk(context.Background(), Options{Start: dir, Boundary: dir, Keep: keep, Excluded: &ex})
		require.NoError(t, err)
		c := ex.Count(context.Background(), 1000)
		require.Equal(t, len(ignored), c.Files, "keep *.txt: %v", keepTxt)
		require.False(t, c.Capped)
		most := 0
		for _, n := range byRule {
			most = max(most, n)
		}
		require.Equal(t, most, c.RuleFiles)
		require.Equal(t, most, byRule[strconv.Itoa(c.Rule.Line)], "rule %s", c.Rule)

		capped := Excluded{}
		_, err = Walk(context.Background(), Options{Start: dir, Boundary: dir, Keep: keep, Excluded: &capped})
		require.NoError(t, err)
		// build/deep holds 30 entries: a budget of 20 stops inside it.
		c = capped.Count(context.Background(), 20)
		require.True(t, c.Capped)
		require.Less(t, c.Files, len(ignored))
	}
}
