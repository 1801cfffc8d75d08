//go:build unix

package walk

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestWalkOpen checks that Options.Open sees exactly the files Walk
// returns (and Found none), each text file through a descriptor open on
// it whose size and time are the File's, and closed once Open returned; a
// file binary by its name is not opened (-1), nor is a symlink followed or
// a FIFO opened.
func TestWalkOpen(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{".gitignore": "*.log\n", "a/x.go": "package x\n", "a/y.log": "", "b/c/z.txt": "zz", "b/p.png": "\x89PNG"})
	require.NoError(t, os.Symlink(filepath.Join(dir, "a", "x.go"), filepath.Join(dir, "b", "link.go")))
	require.NoError(t, unix.Mkfifo(filepath.Join(dir, "b", "fifo"), 0o644))
	var mu sync.Mutex
	var opened []File
	fds := map[string]int{}
	texts := map[string]string{}
	files, err := Walk(context.Background(), Options{Start: dir, Boundary: dir,
		Found: func(File) { t.Error("Found called with Open set") },
		Open: func(f File, fd int) {
			text := ""
			if fd >= 0 {
				var st unix.Stat_t
				require.NoError(t, unix.Fstat(fd, &st))
				require.Equal(t, f.Size, st.Size)
				require.Equal(t, f.ModTime, st.Mtim.Nano())
				buf := make([]byte, 64)
				n, err := unix.Read(fd, buf)
				require.NoError(t, err)
				text = string(buf[:n])
			}
			mu.Lock()
			defer mu.Unlock()
			opened = append(opened, f)
			fds[f.Rel], texts[f.Rel] = fd, text
		}})
	require.NoError(t, err)
	SortNewestFirst(opened)
	require.Equal(t, files, opened)
	require.Equal(t, map[string]string{".gitignore": "*.log\n", "a/x.go": "package x\n", "b/c/z.txt": "zz", "b/p.png": ""}, texts)
	require.Equal(t, -1, fds["b/p.png"], "binary by its name: not opened")
	for rel, fd := range fds {
		if fd >= 0 {
			_, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
			require.ErrorIs(t, err, unix.EBADF, "%s: its descriptor is closed after Open", rel)
		}
	}
}
