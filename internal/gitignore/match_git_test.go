package gitignore

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// nameBytes are the bytes generated names hold: few, so that rules and names
// collide often, and the ones wildmatch treats specially.
const nameBytes = "abc.!*?[]\\-^ "

// genTree turns fuzz text into up to 8 relative paths of at most 4
// components made of nameBytes. A path ending in "/" names a directory.
func genTree(spec string) (files, dirs []string) {
	seen := map[string]bool{}
	for _, line := range strings.Split(spec, "\n") {
		isDir := strings.HasSuffix(line, "/")
		var comps []string
		for _, c := range strings.Split(line, "/") {
			c = strings.Map(func(r rune) rune {
				if strings.ContainsRune(nameBytes, r) {
					return r
				}
				return -1
			}, c)
			if c != "" && c != "." && c != ".." {
				comps = append(comps, c)
			}
		}
		if len(comps) == 0 || len(comps) > 4 {
			continue
		}
		p := strings.Join(comps, "/")
		if seen[p] {
			continue
		}
		seen[p] = true
		if isDir {
			dirs = append(dirs, p)
		} else {
			files = append(files, p)
		}
		if len(seen) == 8 {
			break
		}
	}
	return files, dirs
}

// gitVerdicts asks `git check-ignore -v -n` about every path (and each
// parent directory) below dir, whose .gitignore holds the rules: it maps
// each path to the line of the deciding rule, 0 for none.
func gitVerdicts(t *testing.T, dir string, paths []string) map[string]int {
	t.Helper()
	cmd := exec.Command("git", "check-ignore", "--no-index", "-v", "-n", "-z", "--stdin")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "XDG_CONFIG_HOME=")
	cmd.Stdin = strings.NewReader(strings.Join(paths, "\x00") + "\x00")
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() != 1 {
		t.Fatalf("git check-ignore %q: %v: %s", paths, err, ee.Stderr)
	}
	f := bytes.Split(out, []byte{0})
	got := map[string]int{}
	for i := 0; i+3 < len(f); i += 4 {
		line := 0
		if len(f[i+1]) > 0 {
			line, err = strconv.Atoi(string(f[i+1]))
			require.NoError(t, err)
		}
		got[string(f[i+3])] = line
	}
	return got
}

// verdict is git's answer for a path: the rule that excludes its topmost
// excluded parent directory, else the path's own last matching rule.
func verdict(m *Matcher, path string, isDir bool) int {
	for i := 0; i < len(path); i++ {
		if path[i] == '/' {
			if r := m.Match(path[:i], true); r != nil && !r.Negate {
				return r.Line
			}
		}
	}
	if r := m.Match(path, isDir); r != nil {
		return r.Line
	}
	return 0
}

// FuzzMatchVsGit compiles fuzzed rules and compares, for every path of a
// generated tree, the deciding rule with the one `git check-ignore -v`
// names.
func FuzzMatchVsGit(f *testing.F) {
	if _, err := exec.LookPath("git"); err != nil {
		f.Skip("git is not installed")
	}
	for _, s := range [][2]string{
		{"aa**/b\nc/**.b\n", "aa/b\naac/b\naa/a/b\nc/a.b\nc/b/a.b"},
		{"a/**\n!a/**/\nb/**/\n", "a/x\na/b/x\nb/x\nb/c/x"},
		{"a\\  \nb\\\\ \n\\ \n", "a \na  \nb\\\nb\\ \n "},
		{"*.a\n!b.a\n[!a]?\n[[:alpha:]]b\n", "b.a\nc.a\nab\nbb\n-b"},
		{"**/a\na/**/b\n/b\n!*/\n", "a\nb\nx/a\na/b\na/x/y/b\nb/b"},
		{"a/\n!a/b\n*\n!*.b\n", "a/b\na/x.b\nb/\nx.b"},
		{"[a-]b\n[]a]\n[\\]]\n[!]]x\n[a-\\]]y\n", "ab\n-b\n]\na\nbx\n]x\nay"},
		{"a*b*c\n*.*.*\n?b/\n\\*a\n", "aabc\na.b.c\nab/\n*a\nba"},
		{"*\n!a*\n!*/\nb*/**\n", "ab\nb/a\nb/c/ab\nba"},
	} {
		f.Add(s[0], s[1])
	}
	// One repository serves every input; only its work tree is reset.
	dir := f.TempDir()
	init := exec.Command("git", "init", "-q", dir)
	init.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	if out, err := init.CombinedOutput(); err != nil {
		f.Fatalf("git init: %v: %s", err, out)
	}
	f.Fuzz(func(t *testing.T, rules, tree string) {
		if len(rules) > 200 || len(tree) > 200 || strings.ContainsAny(rules, "\x00") {
			return
		}
		files, dirs := genTree(tree)
		if len(files)+len(dirs) == 0 {
			return
		}
		ents, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range ents {
			if e.Name() != ".git" {
				require.NoError(t, os.RemoveAll(filepath.Join(dir, e.Name())))
			}
		}
		isDir := map[string]bool{}
		for _, d := range dirs {
			if os.MkdirAll(filepath.Join(dir, d), 0o755) != nil {
				return
			}
			isDir[d] = true
		}
		for _, p := range files {
			abs := filepath.Join(dir, p)
			if os.MkdirAll(filepath.Dir(abs), 0o755) != nil {
				return
			}
			if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
				isDir[p] = true // an earlier path made it a directory
				continue
			}
			require.NoError(t, os.WriteFile(abs, nil, 0o644))
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(rules), 0o644))
		var paths []string
		seen := map[string]bool{}
		for _, p := range append(files, dirs...) {
			for i := 0; i <= len(p); i++ {
				if (i == len(p) || p[i] == '/') && !seen[p[:i]] {
					seen[p[:i]] = true
					paths = append(paths, p[:i])
					if i < len(p) {
						isDir[p[:i]] = true
					}
				}
			}
		}
		want := gitVerdicts(t, dir, paths)
		m := Compile(".gitignore", []byte(rules))
		for _, p := range paths {
			require.Equal(t, want[p], verdict(m, p, isDir[p]), "rules %q, path %q (dir %v)", rules, p, isDir[p])
		}
	})
}
