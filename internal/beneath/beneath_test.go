//go:build linux

package beneath

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOpenRefusesSymlinkOnTheWay: a symlink in any component of the path is
// ErrSymlink, never followed; the same path without one opens.
func TestOpenRefusesSymlinkOnTheWay(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(dir+"/real/sub", 0o755))
	require.NoError(t, os.WriteFile(dir+"/real/sub/f", []byte("x"), 0o644))
	require.NoError(t, os.Symlink("real", dir+"/link"))
	require.NoError(t, os.Symlink("f", dir+"/real/sub/lf"))
	f, err := Open(dir+"/real/sub/f", os.O_RDONLY, 0)
	require.NoError(t, err)
	f.Close()
	for _, p := range []string{dir + "/link/sub/f", dir + "/real/sub/lf"} {
		_, err = Open(p, os.O_RDONLY, 0)
		require.ErrorIs(t, err, ErrSymlink, p)
	}
	openat2Missing = true // the fallback walk, as on kernels before 5.6
	defer func() { openat2Missing = false }()
	_, err = Open(dir+"/link/sub/f", os.O_RDONLY, 0)
	require.ErrorIs(t, err, ErrSymlink)
	f, err = Open(dir+"/real/sub/f", os.O_RDONLY, 0)
	require.NoError(t, err)
	f.Close()
}

// TestDirSubReplacesSymlink: a symlink left where the server's directory
// goes is removed and the directory made; Create never follows one.
func TestDirSubReplacesSymlink(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	require.NoError(t, os.Symlink(outside, dir+"/out"))
	d, err := OpenDir(dir)
	require.NoError(t, err)
	defer d.Close()
	sub, err := d.Sub("out", 0o700)
	require.NoError(t, err)
	defer sub.Close()
	fi, err := os.Lstat(dir + "/out")
	require.NoError(t, err)
	require.True(t, fi.IsDir())
	require.NoError(t, os.Symlink(outside+"/victim", dir+"/out/f"))
	_, err = sub.Create("f", os.O_WRONLY, 0o600)
	require.True(t, errors.Is(err, os.ErrExist) || errors.Is(err, ErrSymlink), "%v", err)
	require.NoFileExists(t, outside+"/victim")
	require.NoError(t, sub.Remove("f"))
	f, err := sub.Create("f", os.O_WRONLY, 0o600)
	require.NoError(t, err)
	f.Close()
	require.Empty(t, mustReadDir(t, outside))
}

func mustReadDir(t *testing.T, dir string) []os.DirEntry {
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	return ents
}
