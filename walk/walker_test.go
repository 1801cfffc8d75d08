//go:build unix

package walk

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestWalkRules(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".gitignore":                 "node_modules/\n*.log\nsrc/gen/\n",
		".ignore":                    "!important.log\n",
		"important.log":              "",
		"x.log":                      "",
		".hidden":                    "",
		".config/settings.json":      "",
		".git/HEAD":                  "",
		".hg/store":                  "",
		"sub/.svn/entries":           "",
		"src/main.go":                "",
		"src/a.log":                  "",
		"src/gen/out.go":             "",
		"node_modules/x/index.js":    "",
		"node_modules/x/.gitignore":  "dist/\n",
		"node_modules/x/dist/big.js": "",
		"node_modules/x/y.log":       "",
		"outside/secret.txt":         "",
	})
	require.NoError(t, os.Symlink(filepath.Join(dir, "outside"), filepath.Join(dir, "dirlink")))
	require.NoError(t, os.Symlink(filepath.Join(dir, "outside", "secret.txt"), filepath.Join(dir, "filelink")))
	require.NoError(t, os.Symlink(dir, filepath.Join(dir, "src", "loop")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))

	tests := []struct {
		name  string
		start string
		want  []string
	}{
		{"root", ".", []string{".config/settings.json", ".gitignore", ".hidden", ".ignore", "important.log", "outside/secret.txt", "src/main.go"}},
		// Parents' rules apply to a path that is not itself ignored.
		{"subdir keeps parent rules", "src", []string{"main.go"}},
		// An explicit path inside an ignored tree switches the parents' rules
		// off; the ignore files inside it still apply.
		{"explicit ignored tree", "node_modules/x", []string{".gitignore", "index.js", "y.log"}},
		{"explicit ignored dir", "src/gen", []string{"out.go"}},
		{"explicit ignored file", "x.log", []string{"x.log"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, walkRels(t, filepath.Join(dir, tc.start), dir))
		})
	}
}

func TestWalkNewestFirst(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.txt": "", "b.txt": "", "c/d.txt": "", "e.txt": ""})
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for p, age := range map[string]int{"a.txt": 3, "b.txt": 1, "c/d.txt": 2, "e.txt": 1} {
		mt := base.Add(-time.Duration(age) * time.Hour)
		require.NoError(t, os.Chtimes(filepath.Join(dir, p), mt, mt))
	}
	files, err := Walk(context.Background(), Options{Start: dir, Boundary: dir, Workers: 3})
	require.NoError(t, err)
	var got []string
	for _, f := range files {
		got = append(got, f.Rel)
	}
	require.Equal(t, []string{"b.txt", "e.txt", "c/d.txt", "a.txt"}, got)
}

func TestWalkKeepAndCancel(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.go": "", "b.txt": "", "d/c.go": ""})
	files, err := Walk(context.Background(), Options{Start: dir, Boundary: dir, Keep: func(rel, name string) bool {
		return filepath.Ext(name) == ".go"
	}})
	require.NoError(t, err)
	require.Len(t, files, 2)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Walk(ctx, Options{Start: dir, Boundary: dir})
	require.ErrorIs(t, err, context.Canceled)
}

func BenchmarkWalkGoroot(b *testing.B) {
	root := "/usr/local/go"
	if _, err := os.Stat(root); err != nil {
		b.Skip("no /usr/local/go")
	}
	for i := 0; i < b.N; i++ {
		if _, err := Walk(context.Background(), Options{Start: root, Boundary: root}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWalkCorpus(b *testing.B) {
	root := os.Getenv("TOOLRPC_BENCH_CORPUS")
	if root == "" {
		b.Skip("TOOLRPC_BENCH_CORPUS not set")
	}
	for i := 0; i < b.N; i++ {
		if _, err := Walk(context.Background(), Options{Start: root, Boundary: root}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestWalkOrderIsSortNewestFirst (SPEC §5): a walk's files, most of them
// equal in time and thousands of them (so sorted in runs on several
// cores), come in SortNewestFirst's order: newest first, ties by Abs, with
// names around the separator's byte ('-', '.', '0') that order differently
// by name and by path; each Rel is Abs below the start.
func TestWalkOrderIsSortNewestFirst(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 6000 {
		d := []string{"a", "a-b", "a.b", "a0", "ab"}[i%5]
		files[d+"/"+[]string{"x", "x-y", "x.y", "x0", "x/y"}[i/5%5]+"/f"+string(rune('0'+i%10))+"_"+string(rune('a'+i/50%26))+string(rune('a'+i/1300))] = ""
	}
	writeTree(t, dir, files)
	same := time.Unix(1700000000, 0)
	n := 0
	require.NoError(t, filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		require.NoError(t, err)
		mt := same
		if n++; n%97 == 0 {
			mt = same.Add(time.Duration(n) * time.Second)
		}
		return os.Chtimes(p, mt, mt)
	}))
	got, err := Walk(context.Background(), Options{Start: dir, Boundary: dir})
	require.NoError(t, err)
	require.Len(t, got, len(files))
	want := append([]File(nil), got...)
	for i := range want {
		want[i].Rel = "" // SortNewestFirst orders by Abs alone
	}
	SortNewestFirst(want)
	for i := range got {
		require.Equal(t, want[i].Abs, got[i].Abs, "position %d", i)
		require.Equal(t, filepath.ToSlash(got[i].Abs[len(dir)+1:]), got[i].Rel)
	}
}
