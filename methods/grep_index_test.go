package methods

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/search"
	"github.com/toolrpc/toolrpc/walk"
	"github.com/toolrpc/toolrpc/wire"
)

// grepIndexWords make up the generated tree and patterns: mixed case, case
// partners outside ASCII (K and U+212A), line ends, invalid UTF-8.
var grepIndexWords = []string{
	"foo", "Foo", "FOO", "bar", "baz", "pm_resume", "PM_RESUME", "Resume", "k", "K", "\u212a",
	"ſ", "s", "é", "É", "\n", "\r\n", " ", "\t", "123", "\xff", "_x", "abc", "xyz", "func", "(", ")",
}

func grepIndexText(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(grepIndexWords[r.IntN(len(grepIndexWords))])
	}
	return b.String()
}

func grepIndexPattern(r *rand.Rand) string {
	parts := []string{
		regexp.QuoteMeta(grepIndexWords[r.IntN(len(grepIndexWords))]),
		`\w+`, `[a-z]`, `\b`, `^`, `$`, `.`, `(?i:resume)`, `(foo|bar)`, `\x{212a}`, `[0-9]{2}`, `\s*`,
	}
	var b strings.Builder
	for range 1 + r.IntN(4) {
		b.WriteString(parts[r.IntN(len(parts))])
	}
	return b.String()
}

// grepBoth runs one grep through the index and through the scan path and
// returns both results as JSON.
func grepBoth(t *testing.T, s *Session, params map[string]any) (indexed, scanned string) {
	t.Helper()
	run := func(on bool) string {
		ix := s.index
		if !on {
			s.index = nil
		}
		defer func() { s.index = ix }()
		raw, err := json.Marshal(params)
		require.NoError(t, err)
		res, rerr := grepTestRun[json.RawMessage](t, s, "tools/grep", json.RawMessage(raw))
		if rerr != nil {
			return "error: " + rerr.Error()
		}
		return string(res)
	}
	return run(true), run(false)
}

// waitIndexed makes a first grep start the index build and waits for it.
func waitIndexed(t *testing.T, s *Session) {
	t.Helper()
	grepBoth(t, s, map[string]any{"pattern": "abcdef"})
	m := s.index.Manager(s.roots.First())
	for deadline := time.Now().Add(time.Minute); !m.Ready(); {
		require.True(t, time.Now().Before(deadline), "the index is built within a minute")
		time.Sleep(10 * time.Millisecond)
	}
}

// TestGrepIndexedEqualsScan: random trees, random greps in every mode with
// paging and context, random edits between calls; the indexed answer equals
// the scan answer byte for byte, and an edited file is searched as edited.
func TestGrepIndexedEqualsScan(t *testing.T) {
	old := indexCPUPercent
	indexCPUPercent = 100
	defer func() { indexCPUPercent = old }()
	seeds := 4
	if testing.Short() {
		seeds = 1
	}
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 99))
			s := grepTestSession(t)
			defer s.index.Close()
			var tree [][2]string
			for i := range 60 {
				tree = append(tree, [2]string{fmt.Sprintf("d%d/f%d.txt", i%5, i), grepIndexText(r, 40)})
			}
			grepTestFiles(t, s, tree)
			waitIndexed(t, s)
			narrowed := 0
			for round := range 40 {
				if round%4 == 3 {
					// An edit with a fresh mtime, as an editor makes it.
					rel := tree[r.IntN(len(tree))][0]
					text := grepIndexText(r, 40) + "\nedited_marker_" + fmt.Sprint(round) + "\n"
					require.NoError(t, os.WriteFile(filepath.Join(s.roots.First(), rel), []byte(text), 0o644))
					params := map[string]any{"pattern": "edited_marker_" + fmt.Sprint(round) + "$", "outputMode": "content"}
					ix, sc := grepBoth(t, s, params)
					require.Equal(t, sc, ix)
					require.Contains(t, ix, rel, "the edit is in the result at once")
				}
				params := map[string]any{
					"pattern":         grepIndexPattern(r),
					"caseInsensitive": r.IntN(2) == 0,
					"multiline":       r.IntN(6) == 0,
					"outputMode":      []string{"content", "filesWithMatches", "count"}[r.IntN(3)],
					"headLimit":       1 + r.IntN(30),
					"offset":          r.IntN(5),
					"context":         r.IntN(2),
				}
				ix, sc := grepBoth(t, s, params)
				require.Equal(t, sc, ix, "params %v", params)
				q, _ := grepIndexQueryLen(s, params)
				if q {
					narrowed++
				}
			}
			require.Positive(t, narrowed, "some greps were narrowed by the index")
		})
	}
}

// grepIndexQueryLen reports whether the index narrowed the files of a grep.
func grepIndexQueryLen(s *Session, params map[string]any) (bool, error) {
	raw, _ := json.Marshal(params)
	var p wire.GrepParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return false, err
	}
	root := s.roots.First()
	files, err := walk.Walk(context.Background(), walk.Options{Start: root, Boundary: root})
	if err != nil {
		return false, err
	}
	m, err := search.Compile(*p.Pattern, p.CaseInsensitive, p.Multiline)
	if err != nil {
		return false, err
	}
	return s.index.Narrow(root, m.Syntax(), len(*p.Pattern), walk.FileList(files)).Len() < len(files), nil
}

// TestFileTableListingAppendsPaths: what the file table's listing appends
// and reports without building a file (the content index drops files so) is
// what At builds.
func TestFileTableListingAppendsPaths(t *testing.T) {
	s := grepTestSession(t)
	t.Cleanup(s.files.Close)
	grepTestFiles(t, s, grepTestTree)
	root := s.roots.First()
	var files walk.Files
	for range 2 { // the first listing builds the table, the second reads it
		var err error
		files, err = s.files.Walk(context.Background(), walk.Options{Start: root, Boundary: root})
		require.NoError(t, err)
	}
	app := files
	require.Positive(t, files.Len())
	for i := range files.Len() {
		f := files.At(i)
		require.Equal(t, f.Abs, string(app.AppendAbs(nil, i)))
		size, mtime := app.Identity(i)
		require.Equal(t, [2]int64{f.Size, f.ModTime}, [2]int64{size, mtime})
	}
}
