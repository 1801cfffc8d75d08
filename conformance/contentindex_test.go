package conformance

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// indexWords make up the tree and the patterns: mixed case, case partners
// outside ASCII (K, U+212A; s, U+017F), CRLF, bytes that are not UTF-8.
var indexWords = []string{"foo", "Foo", "FOO", "bar", "pm_resume", "PM_RESUME", "Resume", "k", "K", "\u212a",
	"\n", "\r\n", " ", "\t", "123", "\xff", "abc", "xyz", "func", "(", ")", "re\u017fume", "\u212aELVIN", "kelvin"}

// indexBackstop bounds the wait for the index build of a tiny tree; it is
// not a speed assertion.
const indexBackstop = 2 * time.Minute

// TestContentIndexEqualsScan (issue 15): a server whose content index is
// built answers every grep byte for byte as a server that cannot keep an
// index (its dataDir is not a directory), also right after a file is
// edited.
//
// Checks SPEC §12.
func TestContentIndexEqualsScan(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 15))
	root := t.TempDir()
	old := time.Now().Add(-time.Hour)
	var names []string
	for i := range 80 {
		name := fmt.Sprintf("d%d/f%d.txt", i%6, i)
		var b strings.Builder
		for range 50 {
			b.WriteString(indexWords[r.IntN(len(indexWords))])
		}
		p := filepath.Join(root, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
		mt := old.Add(time.Duration(i) * time.Second)
		require.NoError(t, os.Chtimes(p, mt, mt))
		names = append(names, name)
	}
	indexed, scan := indexedAndScan(t, root)
	both := func(params map[string]any) string {
		a, b := indexed.call(t, "tools/grep", params), scan.call(t, "tools/grep", params)
		require.Equal(t, string(b), string(a), "params %v", params)
		return string(a)
	}
	patterns := []string{`PM_RESUME`, `pm_resume`, `(?i)pm_resume`, `\bFoo\b`, `foo|bar`, `K[a-z]*`, `\x{212a}`,
		`abc$`, `^func`, `[0-9]{3}`, `Resume\r`, `xyz\s+abc`, `f.o`,
		// Literals grep confirms without regexp (i = 15, 18: case-insensitive).
		`RESUME`, `c\x{fffd}b`, `kelvin`, `re\x{17f}ume`, `resume`, `sk`}
	for i, p := range patterns {
		if i%4 == 3 {
			name := names[r.IntN(len(names))]
			marker := fmt.Sprintf("edited_%d", i)
			require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte("x\n"+marker+"\n"), 0o644))
			got := both(map[string]any{"pattern": marker, "outputMode": "content"})
			require.Contains(t, got, filepath.ToSlash(name), "the edit is found at once")
		}
		for _, mode := range []string{"content", "filesWithMatches", "count"} {
			both(map[string]any{"pattern": p, "outputMode": mode, "caseInsensitive": i%3 == 0, "headLimit": 7, "context": i % 2})
		}
	}
	require.Contains(t, scan.stderr.String(), "no content index this session", "the scan server had no index")
}

// indexedAndScan starts two servers on root: one whose content index is built
// and mapped before it returns, and one that cannot keep an index (its data
// dir lies under a regular file), so every grep it answers is a scan.
func indexedAndScan(t *testing.T, root string) (indexed, scan *server) {
	blocked := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(blocked, nil, 0o600))
	indexed = start(t, withRoot(root))
	scan = start(t, withRoot(root), withDataDir(filepath.Join(blocked, "data")))

	// The first grep starts the build; the index file appears when it is
	// done, and the server maps it at once. (Answers are equal either way:
	// the wait only makes the index answer.)
	indexed.call(t, "tools/grep", map[string]any{"pattern": "start_the_build"})
	for deadline := time.Now().Add(indexBackstop); ; {
		if m, _ := filepath.Glob(filepath.Join(indexed.DataDir, "index", "*", "index")); len(m) == 1 {
			break
		}
		require.True(t, time.Now().Before(deadline), "the index of a tiny tree is built: %s", indexed.stderr.String())
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // the mapping follows the rename
	return indexed, scan
}

// restartGap outlasts the window in which a new server distrusts the stamps
// an earlier server persisted (2 s), so the changes below are found by
// comparing stamps, not by re-listing every recent directory.
const restartGap = 2100 * time.Millisecond

// TestContentIndexAfterRestart (issue 27): a new server on a tree whose
// content index and file table an earlier server left in the same data dir,
// the tree changed while no server ran (an edit to the same size, a
// delete, renames, a new file, a new directory, a new .gitignore),
// answers every grep byte for byte as a scan server started after the
// changes, and after changes made right after its first answer (issue 35:
// while its watches are being added).
//
// Checks SPEC §12.
func TestContentIndexAfterRestart(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	put := func(rel, content string) {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	for i := range 40 {
		put(fmt.Sprintf("d%d/f%02d.txt", i%5, i), fmt.Sprintf("foo %d\nPM_RESUME %d\n", i, i%7))
	}
	put(".gitignore", "*.log\n")
	put("d1/x.log", "PM_RESUME in a log\n")
	first, _ := indexedAndScan(t, root)
	first.call(t, "tools/grep", map[string]any{"pattern": "PM_RESUME"})
	first.stop(t)
	m, _ := filepath.Glob(filepath.Join(first.DataDir, "index", "*", "filetable"))
	if fileTableBuild {
		require.Len(t, m, 1, "the first server persisted its file table")
	} else {
		require.Empty(t, m, "a build without file tables persists none; the restart below walks")
	}
	time.Sleep(restartGap)

	put("d0/f00.txt", "foo 0\nPM_RESUMX 0\n") // same size, new time
	require.NoError(t, os.Remove(filepath.Join(root, "d2/f02.txt")))
	require.NoError(t, os.Rename(filepath.Join(root, "d3/f03.txt"), filepath.Join(root, "d4/moved.txt")))
	require.NoError(t, os.Rename(filepath.Join(root, "d1"), filepath.Join(root, "d1renamed")))
	put("d4/new.txt", "PM_RESUME new\n")
	put("fresh/deep/n.txt", "PM_RESUME deep\n")
	put("d0/.gitignore", "f1*.txt\n")

	again := start(t, withRoot(root), withDataDir(first.DataDir))
	// Its first call answers from the stamps alone; its watches are added
	// once it has answered: what changes now, before or after a watch,
	// must show too.
	require.Contains(t, string(again.call(t, "tools/grep", map[string]any{"pattern": "PM_RESUME", "outputMode": "count"})), "d4/new.txt")
	put("d4/late.txt", "PM_RESUME late\n")
	put("d0/f05.txt", "foo 5\nPM_RESUME 5\nPM_RESUME again\n")
	blocked := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(blocked, nil, 0o600))
	scan := start(t, withRoot(root), withDataDir(filepath.Join(blocked, "data")))
	for _, p := range []string{`PM_RESUME`, `PM_RESUM.`, `foo \d+`, `deep|new`} {
		for _, mode := range []string{"content", "filesWithMatches", "count"} {
			params := map[string]any{"pattern": p, "outputMode": mode}
			require.Equal(t, string(scan.call(t, "tools/grep", params)), string(again.call(t, "tools/grep", params)), "params %v", params)
		}
	}
	glob := map[string]any{"pattern": "**/*"}
	require.Equal(t, string(scan.call(t, "tools/glob", glob)), string(again.call(t, "tools/glob", glob)))
}
