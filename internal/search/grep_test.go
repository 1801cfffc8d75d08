package search

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/filetable"
	"github.com/toolrpc/toolrpc/internal/sourceset"
	"github.com/toolrpc/toolrpc/limits"
)

// engineTree writes files below a new temporary root with modification
// times: the first listed is the newest, each next one an hour older.
func engineTree(t testing.TB, files [][2]string) string {
	t.Helper()
	root := t.TempDir()
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f[0]))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(f[1]), 0o644))
		mt := base.Add(-time.Duration(i) * time.Hour)
		require.NoError(t, os.Chtimes(p, mt, mt))
	}
	return root
}

// engineQuery is a query for pattern below root (or its file rel, when
// set), showing paths relative to root, with tools/grep's default headLimit.
func engineQuery(t testing.TB, root, rel, pattern string, mode Mode) *Query {
	t.Helper()
	m, err := Compile(pattern, false, false)
	require.NoError(t, err)
	return &Query{
		Start: filepath.Join(root, filepath.FromSlash(rel)), Boundary: root,
		Display: func(abs string) string {
			r, err := filepath.Rel(root, abs)
			require.NoError(t, err)
			return filepath.ToSlash(r)
		},
		Sources: sourceset.New(), Mode: mode, Matcher: m, HeadLimit: limits.GrepDefaultHeadLimit,
	}
}

// engineGrep runs q.
func engineGrep(t testing.TB, q *Query) Result {
	t.Helper()
	res, err := Grep(context.Background(), q)
	require.NoError(t, err)
	return res
}

// TestGrepContext checks SPEC §5: before/after/context lines around each
// match, merged where they overlap, and paged with the matches they
// belong to.
func TestGrepContext(t *testing.T) {
	root := engineTree(t, [][2]string{{"sub/old.go", "a\nb\nc\nTODO four\nd\ne\nf\ng\nTODO five\nh\n"}})
	type line struct {
		N   int
		Ctx bool
	}
	tests := []struct {
		name                             string
		before, after, offset, headLimit int
		want                             []line
	}{
		{"context 1", 1, 1, 0, 0, []line{{3, true}, {4, false}, {5, true}, {8, true}, {9, false}, {10, true}}},
		{"after 4 overlaps next match", 0, 4, 0, 0, []line{{4, false}, {5, true}, {6, true}, {7, true}, {8, true}, {9, false}, {10, true}}},
		{"before 2", 2, 0, 0, 0, []line{{2, true}, {3, true}, {4, false}, {7, true}, {8, true}, {9, false}}},
		{"offset skips first match and its context", 1, 1, 1, 0, []line{{8, true}, {9, false}, {10, true}}},
		{"headLimit keeps after-context of the last match", 1, 1, 0, 1, []line{{3, true}, {4, false}, {5, true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := engineQuery(t, root, "sub/old.go", "TODO", Content)
			q.Before, q.After, q.Offset = tc.before, tc.after, tc.offset
			if tc.headLimit > 0 {
				q.HeadLimit = tc.headLimit
			}
			var got []line
			for _, m := range engineGrep(t, q).Content.Matches {
				got = append(got, line{m.Line, m.Context})
			}
			require.Equal(t, tc.want, got)
		})
	}
}

// TestGrepPaging checks SPEC §5: pages of headLimit entries from offset
// join into the whole answer, each truncated page's notice names the next
// offset, and exactly headLimit entries is not truncated.
func TestGrepPaging(t *testing.T) {
	var files [][2]string
	for i := 0; i < 30; i++ {
		files = append(files, [2]string{filepath.Join("d", string(rune('a'+i%26))+strings.Repeat("x", i/26)+".txt"), "hit\nmiss\nhit\n"})
	}
	root := engineTree(t, files)
	q := engineQuery(t, root, "", "hit", Content)
	q.HeadLimit = 1000
	all := engineGrep(t, q).Content
	require.Len(t, all.Matches, 60)
	require.False(t, all.Truncated)
	var paged []Match
	for off := 0; ; off += 7 {
		q := engineQuery(t, root, "", "hit", Content)
		q.HeadLimit, q.Offset = 7, off
		page := engineGrep(t, q).Content
		paged = append(paged, page.Matches...)
		if !page.Truncated {
			break
		}
		require.Len(t, page.Matches, 7)
		require.Contains(t, page.Notice, "headLimit=7")
		require.Contains(t, page.Notice, "offset="+strconv.Itoa(off+7))
	}
	require.Equal(t, all.Matches, paged)

	// Exactly headLimit matches: nothing more exists, so not truncated.
	q = engineQuery(t, root, "", "hit", FilesWithMatches)
	q.HeadLimit = 30
	exact := engineGrep(t, q).Files
	require.Len(t, exact.Files, 30)
	require.False(t, exact.Truncated)
}

// TestGrepBudgetAndClip checks SPEC §5: a content result stops at the
// byte/line budget with a notice naming the next offset, and clipped lines
// are not recorded as shown whole.
func TestGrepBudgetAndClip(t *testing.T) {
	long := strings.Repeat("é", limits.MaxLineChars+10)
	var b strings.Builder
	for i := 0; i < 20; i++ {
		b.WriteString("hit " + long + "\n")
	}
	b.WriteString("hit short\n")
	root := engineTree(t, [][2]string{{"big.txt", b.String()}})
	q := engineQuery(t, root, "", "hit", Content)
	res := engineGrep(t, q).Content
	require.True(t, res.Truncated)
	require.Less(t, len(res.Matches), 20)
	require.Regexp(t, `^Stopped at the 128 KB / 4000-line result budget after \d+ matching lines\. Next: offset=\d+, or narrow path/glob\.`, res.Notice)
	require.Contains(t, res.Notice, "clipped at 16384 characters")
	for _, m := range res.Matches {
		require.Equal(t, limits.MaxLineChars, len([]rune(m.Text)))
		require.False(t, q.Sources.Has(filepath.Join(root, "big.txt"), res.Tags["big.txt"], m.Line))
	}
}

// TestGrepChunksMatchWholeFile checks SPEC §5: searching a file in small
// chunks finds the matching lines and tag that searching it whole finds.
func TestGrepChunksMatchWholeFile(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 500; i++ {
		b.WriteString(strings.Repeat("x", i%37) + "\n")
		if i%13 == 0 {
			b.WriteString("needle " + strconv.Itoa(i) + "\n")
		}
	}
	b.WriteString(strings.Repeat("y", 300) + " needle at end without newline")
	root := engineTree(t, [][2]string{{"f.txt", b.String()}})
	grep := func(chunk int) ContentResult {
		q := engineQuery(t, root, "", "needle", Content)
		q.Before, q.After, q.HeadLimit, q.ChunkBytes = 2, 2, 1000, chunk
		return *engineGrep(t, q).Content
	}
	want, got := grep(0), grep(64)
	require.Equal(t, want.Tags, got.Tags)
	var wantMatches, gotMatches []Match
	for _, m := range want.Matches {
		if !m.Context {
			wantMatches = append(wantMatches, m)
		}
	}
	for _, m := range got.Matches {
		if !m.Context {
			gotMatches = append(gotMatches, m)
		}
	}
	require.Equal(t, wantMatches, gotMatches)
}

// FuzzGrepChunks checks SPEC §5: searching a file in small chunks finds
// the same matching lines, numbers and tag as searching it whole.
func FuzzGrepChunks(f *testing.F) {
	f.Add("a\nneedle\r\nb\n", "needle", 3)
	f.Add("x\n\nneedle", "^needle$", 1)
	f.Add(strings.Repeat("ab", 100)+"\nneedle\n", "e+d", 7)
	f.Fuzz(func(t *testing.T, content, pattern string, chunk int) {
		if chunk < 1 || chunk > 1<<16 || strings.IndexByte(content, 0) >= 0 {
			return
		}
		if _, err := Compile(pattern, false, false); err != nil {
			return
		}
		root := engineTree(t, [][2]string{{"f.txt", content}})
		grep := func(chunk int) Result {
			q := engineQuery(t, root, "", pattern, Content)
			q.HeadLimit, q.ChunkBytes = 100000, chunk
			return engineGrep(t, q)
		}
		require.Equal(t, grep(0), grep(chunk))
	})
}

// TestGrepChunkBytesByMode checks SPEC §5's engine policy: line-sized
// chunks unless context lines or a multiline pattern need more.
func TestGrepChunkBytesByMode(t *testing.T) {
	tests := []struct {
		name          string
		before, after int
		multiline     bool
		want          int
	}{
		{"no context", 0, 0, false, limits.SearchLineChunkBytes},
		{"context", 1, 1, false, limits.SearchChunkBytes},
		{"before", 1, 0, false, limits.SearchChunkBytes},
		{"after", 0, 1, false, limits.SearchChunkBytes},
		{"multiline", 0, 0, true, limits.SearchChunkBytes},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Compile("x", false, tc.multiline)
			require.NoError(t, err)
			q := &Query{Matcher: m, Before: tc.before, After: tc.after}
			require.Equal(t, tc.want, q.chunkBytes())
			q.ChunkBytes = 64
			require.Equal(t, 64, q.chunkBytes(), "a shorter chunk is kept")
		})
	}
}

// TestGrepLineChunksLargeFile checks SPEC §5: a file several line-chunks
// long, with matches on the lines around each chunk edge, yields every
// match line and one tag over all chunks.
func TestGrepLineChunksLargeFile(t *testing.T) {
	var b strings.Builder
	var want []int
	line := strings.Repeat("a", 99) + "\n" // 100 bytes
	for n := 1; b.Len() < 3*limits.SearchLineChunkBytes+500; n++ {
		if n%2621 == 0 || n%2621 == 1 || n%2622 == 0 || n == 1 {
			b.WriteString("needle" + line[6:])
			want = append(want, n)
			continue
		}
		b.WriteString(line)
	}
	root := engineTree(t, [][2]string{{"big.txt", b.String()}})
	q := engineQuery(t, root, "", "^needle", Content)
	q.HeadLimit = 100000
	got := engineGrep(t, q).Content
	var lines []int
	for _, m := range got.Matches {
		lines = append(lines, m.Line)
	}
	require.Equal(t, want, lines)
	h := sourceset.NewHash()
	h.Write([]byte(b.String()))
	require.Equal(t, map[string]string{"big.txt": sourceset.TagSum(h.Sum32())}, got.Tags, "the tag covers every chunk")
	counts := engineGrep(t, engineQuery(t, root, "", "^needle", Count)).Counts
	require.Equal(t, []CountEntry{{Path: "big.txt", Count: len(want)}}, counts.Counts)
}

// corpusRow is one grep of the benchmarks over $TOOLRPC_BENCH_CORPUS.
type corpusRow struct {
	name, pattern string
	fold          bool
	mode          Mode
	headLimit     int
}

// benchCorpus runs rows over $TOOLRPC_BENCH_CORPUS (e.g. a copy of the Go
// tree) listed by a resident file table, as a workspace grep lists them.
func benchCorpus(b *testing.B, rows []corpusRow) {
	root := os.Getenv("TOOLRPC_BENCH_CORPUS")
	if root == "" {
		b.Skip("TOOLRPC_BENCH_CORPUS not set")
	}
	set := filetable.NewSet([]string{root}, b.Logf)
	b.Cleanup(set.Close)
	for _, row := range rows {
		b.Run(row.name, func(b *testing.B) {
			m, err := Compile(row.pattern, row.fold, false)
			require.NoError(b, err)
			q := &Query{Start: root, Boundary: root, Display: func(s string) string { return s }, Sources: sourceset.New(),
				Mode: row.mode, Matcher: m, HeadLimit: row.headLimit, List: set.Walk}
			for i := 0; i < b.N; i++ {
				if _, err := Grep(context.Background(), q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGrepCorpus runs grep over $TOOLRPC_BENCH_CORPUS; the peer
// comparison through the binary is in the report.
func BenchmarkGrepCorpus(b *testing.B) {
	benchCorpus(b, []corpusRow{
		{"count", "func main", false, Count, 100000},
		{"fold", "readfull", true, Content, 100000},
		{"weak", "[A-Z]{3,}_[A-Z]+ = ", false, Count, 100000},
	})
}

// BenchmarkGrepGoals runs every grep row of the issue 4 goal table over
// $TOOLRPC_BENCH_CORPUS, in process, so that each row can be profiled alone
// (-cpuprofile with -bench 'GrepGoals/<row>').
func BenchmarkGrepGoals(b *testing.B) {
	benchCorpus(b, []corpusRow{
		{"count", "func main", false, Count, 100000},
		{"files", `sync\.Once`, false, FilesWithMatches, 100000},
		{"fold", "readfull", true, Content, 100000},
		{"fold2", "mutexprofile", true, Content, 100000},
		{"newest", "func ", false, Content, 200},
		{"weak", "[A-Z]{3,}_[A-Z]+ = ", false, Count, 100000},
		{"none", "[0-9]{10}", false, Count, 100000},
	})
}

// hideDir is a ListFilter hiding one directory (relative, slash-separated).
type hideDir string

func (h hideDir) Keep(rel, _ string) bool { return !strings.HasPrefix(rel, string(h)+"/") }
func (h hideDir) Dir(rel string) bool     { return rel != string(h) }

// TestGrepListFilter checks SPEC §5: a query's Filter hides files from the
// listing on top of the glob, and a filtered grep neither keeps nor takes a
// continuation.
func TestGrepListFilter(t *testing.T) {
	root := engineTree(t, [][2]string{{"a/x.txt", "hit\n"}, {"secret/y.txt", "hit\n"}, {"b/z.txt", "hit\n"}})
	q := engineQuery(t, root, "", "hit", FilesWithMatches)
	set := filetable.NewSet([]string{root}, t.Logf)
	t.Cleanup(set.Close)
	q.Filter, q.Resume, q.HeadLimit, q.List = hideDir("secret"), &Resumes{}, 1, set.Walk
	res := engineGrep(t, q).Files
	require.Equal(t, []string{"a/x.txt"}, res.Files)
	require.True(t, res.Truncated)
	require.Empty(t, q.Resume.kept, "a filtered grep keeps no continuation")
	q.Offset = 1
	require.Equal(t, []string{"b/z.txt"}, engineGrep(t, q).Files.Files)
}
