package search

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/walk"
)

// TestGrepFilesModeStopsReadingAtItsMatch checks SPEC §5's filesWithMatches
// mode: one match answers a file, so a file that matches on its first line
// is read no further than its first read (it was gathered to a whole
// search chunk, SearchLineChunkBytes, before any search), while matches past the first read, at the very end, and at the
// end of a line longer than the first read are still found.
func TestGrepFilesModeStopsReadingAtItsMatch(t *testing.T) {
	filler := strings.Repeat(strings.Repeat("x", 63)+"\n", 1<<16) // 4 MiB
	root := engineTree(t, [][2]string{
		{"early.txt", "needle\n" + filler},
		{"late.txt", filler[:3<<20] + "a needle"},
		{"long-line.txt", strings.Repeat("y", 100<<10) + " needle\nz\n"},
		{"none.txt", filler[:2<<20]},
	})
	q := engineQuery(t, root, "", "needle", FilesWithMatches)
	require.ElementsMatch(t, []string{"early.txt", "late.txt", "long-line.txt"}, engineGrep(t, q).Files.Files)

	before := readBytes(t)
	q = engineQuery(t, root, "early.txt", "needle", FilesWithMatches)
	require.Equal(t, []string{"early.txt"}, engineGrep(t, q).Files.Files)
	read := readBytes(t) - before
	require.Less(t, read, int64(limits.SearchFirstReadBytes+limits.SearchFirstReadBytes/2),
		"bytes read to answer a 4 MiB file that matches on its first line")
}

// readBytes returns the bytes this process has read (rchar).
func readBytes(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/io")
	require.NoError(t, err)
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "rchar: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			require.NoError(t, err)
			return n
		}
	}
	t.Fatal("no rchar in /proc/self/io")
	return 0
}

// TestFileSpansReadsOnlyThem: a count grep of a 2 MiB file given one span
// near its end reads that span, not the file's head.
func TestFileSpansReadsOnlyThem(t *testing.T) {
	filler := strings.Repeat(strings.Repeat("x", 63)+"\n", 1<<15) // 2 MiB
	abs := filepath.Join(t.TempDir(), "late.txt")
	content := "needle first\n" + filler + "a needle\nneedle again\n"
	require.NoError(t, os.WriteFile(abs, []byte(content), 0o644))
	m, err := Compile("needle", false, false)
	require.NoError(t, err)
	file := walk.File{Abs: abs, Size: int64(len(content))}
	g := &worker{q: &Query{Mode: Count, Matcher: m, ChunkBytes: limits.SearchLineChunkBytes}, maxMatches: 1 << 30}
	start := int64(len(content) - len("x\na needle\nneedle again\n") - 62)
	before := readBytes(t)
	require.Equal(t, 2, g.fileSpans(context.Background(), file, [][2]int64{{start, file.Size}}).count)
	require.Less(t, readBytes(t)-before, int64(4096), "bytes read to count one span of 86 bytes")
	require.Equal(t, 3, g.fileSpans(context.Background(), file, nil).count, "nil spans: the whole file")
}

// TestGatherReadsOnlyWhatItAsks: a worker whose buffer an earlier large
// file grew still reads a filesWithMatches file in the doubling steps it
// asks for (64 KB, then to 128 KB for a match at 100 KB), not up to its
// buffer's capacity.
func TestGatherReadsOnlyWhatItAsks(t *testing.T) {
	filler := strings.Repeat(strings.Repeat("x", 63)+"\n", 1<<14) // 1 MiB
	dir := t.TempDir()
	big, late := filepath.Join(dir, "big.txt"), filepath.Join(dir, "late.txt")
	require.NoError(t, os.WriteFile(big, []byte(filler), 0o644))
	lateText := filler[:100<<10] + "needle\n" + filler
	require.NoError(t, os.WriteFile(late, []byte(lateText), 0o644))
	m, err := Compile("needle", false, false)
	require.NoError(t, err)
	g := &worker{q: &Query{Mode: FilesWithMatches, Matcher: m, ChunkBytes: limits.SearchLineChunkBytes}, maxMatches: 1 << 30}
	require.Zero(t, g.file(context.Background(), walk.File{Abs: big, Size: int64(len(filler))}).count)
	require.GreaterOrEqual(t, cap(g.buf), limits.SearchLineChunkBytes, "the big file grew the buffer")
	before := readBytes(t)
	require.Equal(t, 1, g.file(context.Background(), walk.File{Abs: late, Size: int64(len(lateText))}).count)
	require.Less(t, readBytes(t)-before, int64(200<<10), "bytes read to find a match at 100 KB")
}
