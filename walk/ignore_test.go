package walk

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/gitignore"
)

// writeTree creates files (slash paths -> content) below dir.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		abs := filepath.Join(dir, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(abs), 0o755))
		require.NoError(t, os.WriteFile(abs, []byte(c), 0o644))
	}
}

func walkRels(t testing.TB, start, boundary string) []string {
	t.Helper()
	files, err := Walk(context.Background(), Options{Start: start, Boundary: boundary})
	require.NoError(t, err)
	var rels []string
	for _, f := range files {
		rels = append(rels, f.Rel)
	}
	sort.Strings(rels)
	return rels
}

// trickyTree exercises negation order, anchoring, middle slashes, dir-only
// patterns, "**", escapes, classes, nested re-includes and whitelists.
var trickyTree = map[string]string{
	".gitignore": strings.Join([]string{
		"# a comment",
		"*.log",
		"!keep.log",
		"!first.bak",
		"*.bak",
		"!keep.bak",
		"/anchored.txt",
		"build/",
		"a/b/c.txt",
		"docs/**/*.tmp",
		"[!x]y.txt",
		`\#hash.txt`,
		`\!bang.txt`,
		"out/**",
		"!out/keep.txt",
		"**/logs",
		"foo/*",
		"trailing.txt   ",
		"crlf.txt\r",
		"",
	}, "\n"),
	"keep.log":                 "",
	"x.log":                    "",
	"deep/y.log":               "",
	"deep/keep.log":            "",
	"first.bak":                "",
	"second.bak":               "",
	"keep.bak":                 "",
	"anchored.txt":             "",
	"sub/anchored.txt":         "",
	"build/x.txt":              "",
	"other/build":              "",
	"a/b/c.txt":                "",
	"x/a/b/c.txt":              "",
	"a/b/d.txt":                "",
	"docs/x.tmp":               "",
	"docs/d/e/y.tmp":           "",
	"docs/readme.md":           "",
	"other/z.tmp":              "",
	"ay.txt":                   "",
	"xy.txt":                   "",
	"#hash.txt":                "",
	"!bang.txt":                "",
	"out/other.txt":            "",
	"out/keep.txt":             "",
	"out/deep/x.txt":           "",
	"logs/a.txt":               "",
	"deep/logs/b.txt":          "",
	"foo/a.txt":                "",
	"foo/sub/b.txt":            "",
	"trailing.txt":             "",
	"crlf.txt":                 "",
	"sub/.gitignore":           "!important.log\n/local.txt\n",
	"sub/important.log":        "",
	"sub/other.log":            "",
	"sub/local.txt":            "",
	"sub/deeper/local.txt":     "",
	"wl/.gitignore":            "*\n!*/\n!*.go\n!.gitignore\n",
	"wl/a.go":                  "",
	"wl/a.txt":                 "",
	"wl/sub/b.go":              "",
	"wl/sub/b.txt":             "",
	"inc/.gitignore":           "*.txt\n!*/\n",
	"inc/d/e.txt":              "",
	"inc/d/e.md":               "",
	"re/.gitignore":            "gen/\n!gen/\n",
	"re/gen/kept.txt":          "",
	"excluded_by_info.txt":     "",
	"sub/excluded_by_info.txt": "",
	".hidden/file.txt":         "",
	".env":                     "",
}

func TestWalkMatchesGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	run := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		return string(out)
	}
	run("init", "-q")
	writeTree(t, dir, trickyTree)
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "info", "exclude"), []byte("excluded_by_info.txt\n"), 0o644))

	out := run("-c", "core.quotePath=false", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	var want []string
	for _, p := range strings.Split(out, "\x00") {
		if p != "" {
			want = append(want, p)
		}
	}
	sort.Strings(want)
	require.Contains(t, want, "wl/sub/b.go", "the tree must exercise re-includes")
	require.NotContains(t, want, "wl/sub/b.txt")

	got := walkRels(t, dir, dir)
	require.Equal(t, want, got)
}

func TestCompileFuzzSeeds(t *testing.T) {
	// A malformed class never panics and matches nothing.
	m := gitignore.Compile("x", []byte("[\n[!\n!\n/**\n**/**\n\\\n"))
	s := &ignoreSet{git: []layer{newLayer(m, "/ws")}}
	require.True(t, s.ignored("/ws/a", false), "only **/** matches")
	require.Equal(t, "x:5 **/**", s.rule("/ws/a", false).String())
}

func FuzzIgnoreRules(f *testing.F) {
	f.Add("*.log\n!keep.log\n", "dir/keep.log", false)
	f.Add("a/**\n!a/b", "a/b", false)
	f.Add("[!x]y\n", "ay", true)
	f.Add("**/logs/\n", "x/logs", true)
	f.Fuzz(func(t *testing.T, rules, path string, isDir bool) {
		for _, c := range strings.Split(path, "/") {
			if c == "" {
				return
			}
		}
		s := &ignoreSet{git: []layer{newLayer(gitignore.Compile("f", []byte(rules)), "/ws")}}
		_ = s.ignored("/ws/"+path, isDir)
	})
}

// TestLayerMatchesBackslashPaths checks SPEC §5's ignore rules on paths
// that hold Windows' separator (issue 34 C): Debian's `/*` + `!/debian/`
// trap, a negation and a pattern of two segments decide `\` paths as they
// decide `/` ones.
func TestLayerMatchesBackslashPaths(t *testing.T) {
	m := gitignore.Compile(`Z:\src\x\.gitignore`, []byte("/*\n!/debian/\n!/kernel/\nkernel/power/\n"))
	l := newLayer(m, `Z:\src\x`)
	ignored := func(abs string, isDir bool) bool {
		r := l.matchSep(abs, isDir, '\\')
		return r != nil && !r.Negate
	}
	require.True(t, ignored(`Z:\src\x\Makefile`, false))
	require.False(t, ignored(`Z:\src\x\debian`, true), "negated !/debian/")
	require.False(t, ignored(`Z:\src\x\debian\rules`, false))
	require.False(t, ignored(`Z:\src\x\kernel\sched`, true))
	require.True(t, ignored(`Z:\src\x\kernel\power`, true), "kernel/power/ has two segments")
	require.False(t, ignored(`Z:\src\x\kernel\power`, false), "a file is no match for a directory pattern")
}
