package walk

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fuzzNameBytes are the bytes generated file names may hold: few enough that
// rules and names collide often, and the ones gitignore syntax treats specially.
const fuzzNameBytes = "ab.!# *?[]\\"

// fuzzTree turns fuzz text into up to 6 relative file paths of at most 3
// components each, made of fuzzNameBytes.
func fuzzTree(spec string) []string {
	seen := map[string]bool{}
	var paths []string
	for _, line := range strings.Split(spec, "\n") {
		var comps []string
		for _, c := range strings.Split(line, "/") {
			c = strings.Map(func(r rune) rune {
				if strings.ContainsRune(fuzzNameBytes, r) {
					return r
				}
				return -1
			}, c)
			if c == "" || c == "." || c == ".." || c == ".git" || strings.HasPrefix(c, ".gitignore") || strings.HasPrefix(c, ".ignore") {
				continue
			}
			comps = append(comps, c)
		}
		if len(comps) == 0 || len(comps) > 3 {
			continue
		}
		p := strings.Join(comps, "/")
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
		if len(paths) == 6 {
			break
		}
	}
	return paths
}

// FuzzIgnoreVsGit builds a small tree with a root .gitignore (and, from the
// third rule block, one in a subdirectory, which nested makes a repository
// of its own) and compares the files a walk keeps with the files `git
// ls-files --others --exclude-standard` keeps.
func FuzzIgnoreVsGit(f *testing.F) {
	git, err := exec.LookPath("git")
	if err != nil {
		f.Skip("git is not installed")
	}
	f.Add("*.b\n!a.b\n", "a.b\nb.b\nab/a.b", "", false)
	f.Add("a/\n!a/b\n", "a/b\na/a\nb/a", "", false)
	f.Add("/a\nb/**/a\n", "a\nb/a\nb/b/a\nb/a/a", "a", false)
	f.Add("[ab]a\n[!a]b\n", "aa\nbb\nab\nba", "", false)
	f.Add("\\#a\n\\!b\n#a\n", "#a\n!b\na", "", false)
	f.Add("a \na\\ \n", "a \na", "", false)
	f.Add("**/a\na/**\n", "a/b\nb/a\nb/b", "!a", false)
	f.Add("*\n!*/\n!*.a\n", "b.a\nb/b.a\nb/b", "", false)
	f.Add("a/b\n", "a/b\nb/a/b\na/a/b", "b", false)
	f.Add("a**/b\nb/**a\n", "a/b\nab/b\na/a/b\nb/a\nb/ba\nb/b/a", "", false)
	f.Add("a/**\n!a/**/\nb/**/\n", "a/a\na/b/a\nb/a\nb/b/a", "", false)
	f.Add("a\\  \nb\\\\ \n\\ \n", "a \na  \nb\\\nb\\ \n ", "", false)
	f.Add("a\n*.b\n", "a\nb/a\nb/b.b\nb/c", "b.b\n!a", true)
	f.Add("[\xb6a]\n\xff*\n", "a\nb", "", false)
	f.Add("a\r\nb\x00a\r\n!\rb\n", "a\nb\n!\rb", "", false)
	dir := f.TempDir()
	init := exec.Command(git, "init", "-q", dir)
	init.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	if out, err := init.CombinedOutput(); err != nil {
		f.Fatalf("git init: %v: %s", err, out)
	}
	f.Setenv("HOME", dir)
	f.Setenv("XDG_CONFIG_HOME", "")
	f.Fuzz(func(t *testing.T, rules, tree, subRules string, nested bool) {
		if len(rules) > 200 || len(tree) > 200 || len(subRules) > 100 {
			return
		}
		paths := fuzzTree(tree)
		if len(paths) == 0 {
			return
		}
		// One repository serves every input; only its work tree is reset.
		ents, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range ents {
			if e.Name() != ".git" {
				require.NoError(t, os.RemoveAll(filepath.Join(dir, e.Name())))
			}
		}
		for _, p := range paths {
			abs := filepath.Join(dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
				return // a file already holds that name
			}
			if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
				continue
			}
			require.NoError(t, os.WriteFile(abs, nil, 0o644))
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(rules), 0o644))
		var repos []string
		if subRules != "" || nested {
			// The first directory of the tree gets its own ignore file.
			for _, p := range paths {
				if i := strings.IndexByte(p, '/'); i > 0 {
					sub := filepath.Join(dir, p[:i])
					require.NoError(t, os.WriteFile(filepath.Join(sub, ".gitignore"), []byte(subRules), 0o644))
					if nested {
						gitIn(t, dir, sub, "init", "-q")
						repos = append(repos, p[:i])
					}
					break
				}
			}
		}
		var want []string
		for _, r := range gitKept(t, dir, dir, repos...) {
			if r != ".gitignore" && !strings.HasSuffix(r, "/.gitignore") {
				want = append(want, r)
			}
		}
		var got []string
		for _, r := range walkRels(t, dir, dir) {
			if r != ".gitignore" && !strings.HasSuffix(r, "/.gitignore") {
				got = append(got, r)
			}
		}
		require.Equal(t, want, got, "root .gitignore %q, sub %q, tree %q", rules, subRules, paths)
	})
}
