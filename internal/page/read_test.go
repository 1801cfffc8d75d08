package page

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/lineindex"
	"github.com/toolrpc/toolrpc/internal/sourceset"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/wire"
)

func readTest(t *testing.T, content string, offset, limit int64) (*wire.ReadResult, string, *sourceset.Set, error) {
	t.Helper()
	abs := filepath.Join(t.TempDir(), "f.txt")
	require.NoError(t, os.WriteFile(abs, []byte(content), 0o644))
	src := sourceset.New()
	pg, err := Read(context.Background(), abs, "f.txt", abs, offset, limit, lineindex.NewCache(limits.LineIndexCacheBytes), src)
	return pg, abs, src, err
}

func TestReadWindowAndSources(t *testing.T) {
	pg, abs, src, err := readTest(t, "a\nb\nc\nd\n", 2, 2)
	require.NoError(t, err)
	tag := sourceset.TagOf([]byte("a\nb\nc\nd\n"))
	require.Equal(t, "[f.txt#"+tag+"]\n2:b\n3:c\n", pg.Content)
	require.Equal(t, int64(4), pg.TotalLines)
	require.Equal(t, "Lines 2–3 of 4. Next: offset=4.", pg.Notice)
	require.False(t, src.Has(abs, tag, 1))
	require.True(t, src.Has(abs, tag, 2))
	require.True(t, src.Has(abs, tag, 3))
}

// TestReadStopsAtTheResultBudget: the header and the lines are charged to
// cut.ResultBudget, and the notice is its one form.
func TestReadStopsAtTheResultBudget(t *testing.T) {
	line := strings.Repeat("x", 1000)
	pg, _, _, err := readTest(t, strings.Repeat(line+"\n", 500), 1, limits.ReadDefaultLimit)
	require.NoError(t, err)
	require.True(t, pg.Truncated)
	require.LessOrEqual(t, len(pg.Content), limits.SearchBudgetBytes)
	require.Greater(t, len(pg.Content)+len(fmt.Sprintf("%d:%s\n", pg.LineCount+1, line)), limits.SearchBudgetBytes)
	require.Equal(t, fmt.Sprintf("Lines 1–%d of 500. Stopped at the %d KB / %d-line result budget after %d of the %d requested lines. Next: offset=%d.",
		pg.LineCount, limits.SearchBudgetBytes/limits.KB, limits.SearchBudgetLines, pg.LineCount, limits.ReadDefaultLimit, pg.LineCount+1), pg.Notice)
}

func TestReadRefusals(t *testing.T) {
	_, _, _, err := readTest(t, "a\x00b\n", 1, 10)
	var e *Error
	require.True(t, errors.As(err, &e))
	require.Equal(t, Binary, e.Refusal)
	require.Equal(t, int64(4), e.Size)

	// UTF-16 without a BOM stays binary by its NUL bytes; with one it is
	// text (SPEC §4.1, TestReadEncodings).
	_, _, _, err = readTest(t, "h\x00i\x00", 1, 10)
	require.True(t, errors.As(err, &e))
	require.Equal(t, Binary, e.Refusal)
	require.Equal(t, "NUL byte at offset 1", e.Reason)

	dir := t.TempDir()
	_, err = Read(context.Background(), dir, "d", dir, 1, 10, lineindex.NewCache(limits.LineIndexCacheBytes), sourceset.New())
	require.True(t, errors.As(err, &e))
	require.Equal(t, IsDirectory, e.Refusal)

	_, err = Read(context.Background(), filepath.Join(dir, "none"), "none", "none", 1, 10, lineindex.NewCache(limits.LineIndexCacheBytes), sourceset.New())
	require.True(t, errors.As(err, &e))
	require.Equal(t, NotFound, e.Refusal)
}
