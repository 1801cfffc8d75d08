package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name     string
		existing string // "" = no file before
		perm     fs.FileMode
	}{
		{"create", "", 0o640},
		{"replace", "old content\n", 0o600},
		{"executable", "#!/bin/sh\n", 0o755},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "f.txt")
			if tc.existing != "" {
				require.NoError(t, os.WriteFile(p, []byte(tc.existing), 0o644))
			}
			require.NoError(t, WriteFile(p, []byte("new\n"), tc.perm))
			got, err := os.ReadFile(p)
			require.NoError(t, err)
			require.Equal(t, "new\n", string(got))
			fi, err := os.Stat(p)
			require.NoError(t, err)
			require.Equal(t, tc.perm, fi.Mode().Perm())
			requireNoTemp(t, dir)
		})
	}
}

func TestReplaceKeepsModeAndAbortKeepsOld(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "script.sh")
	require.NoError(t, os.WriteFile(p, []byte("old\n"), 0o751))
	require.NoError(t, os.Chmod(p, 0o751)) // umask-proof
	fi, err := os.Stat(p)
	require.NoError(t, err)

	a, err := Replace(p, fi)
	require.NoError(t, err)
	_, err = a.Write([]byte("half"))
	require.NoError(t, err)
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, "old\n", string(got), "nothing is visible before Commit")
	a.Abort()
	a.Abort() // idempotent
	requireNoTemp(t, dir)

	a, err = Replace(p, fi)
	require.NoError(t, err)
	_, err = a.Write([]byte("new\n"))
	require.NoError(t, err)
	require.NoError(t, a.Commit())
	require.Error(t, a.Commit(), "a second commit fails")
	got, err = os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, "new\n", string(got))
	fi2, err := os.Stat(p)
	require.NoError(t, err)
	require.Equal(t, fs.FileMode(0o751), fi2.Mode().Perm())
	requireNoTemp(t, dir)
}

func TestCommitIntoMissingDirFails(t *testing.T) {
	_, err := Create(filepath.Join(t.TempDir(), "no", "such", "f"), 0o644)
	require.Error(t, err)
}

func TestTempPatternBounded(t *testing.T) {
	long := strings.Repeat("x", 250)
	dir := t.TempDir()
	p := filepath.Join(dir, long)
	require.NoError(t, WriteFile(p, []byte("x"), 0o644))
	require.LessOrEqual(t, len(TempPattern(long)), 255)
	requireNoTemp(t, dir)
}

func requireNoTemp(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range ents {
		require.False(t, strings.HasSuffix(e.Name(), ".tmp"), "leftover %s", e.Name())
	}
}
