package search

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/limits"
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
