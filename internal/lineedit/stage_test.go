package lineedit

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/sourceset"
)

// TestPlanCommitsAllOrNothing checks that a plan whose files changed after
// they were read writes none of them, and that an unchanged plan puts,
// creates and removes together, keeping each file's encoding.
func TestPlanCommitsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt"), filepath.Join(dir, "sub", "c.txt")
	require.NoError(t, os.WriteFile(a, []byte("\ufeffa\n"), 0o600))
	require.NoError(t, os.WriteFile(b, []byte("b\n"), 0o644))
	plan := func() *Plan {
		da, err := ReadDoc(a, "a.txt", "test")
		require.NoError(t, err)
		require.Equal(t, "a\n", da.Text, "the BOM is not text")
		db, err := ReadDoc(b, "b.txt", "test")
		require.NoError(t, err)
		var p Plan
		require.NoError(t, p.Put(a, "a.txt", "A\n", da))
		require.NoError(t, p.Put(c, "sub/c.txt", "c\n", nil))
		p.Remove(db)
		return &p
	}

	p := plan()
	require.NoError(t, os.WriteFile(b, []byte("changed\n"), 0o644))
	err := p.Commit(context.Background(), sourceset.New())
	var e *Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, Stale, e.Refusal)
	require.Equal(t, "\ufeffa\n", string(must(os.ReadFile(a))), "nothing written")
	_, statErr := os.Stat(c)
	require.ErrorIs(t, statErr, os.ErrNotExist)

	p = plan()
	require.NoError(t, p.Commit(context.Background(), sourceset.New()))
	require.Equal(t, "\ufeffA\n", string(must(os.ReadFile(a))), "BOM and mode kept")
	fi, err := os.Stat(a)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	require.Equal(t, "c\n", string(must(os.ReadFile(c))))
	_, statErr = os.Stat(b)
	require.ErrorIs(t, statErr, os.ErrNotExist)
	left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	require.Empty(t, left, "no temporary file left")
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
