//go:build !toolrpc_portable

package atomicfile

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/toolrpc/toolrpc/internal/beneath"
)

// unnamedFiles reports that Create writes to an unnamed file here.
const unnamedFiles = true

// createUnnamed opens an unnamed file in dir (O_TMPFILE): a writer killed
// before Commit leaves nothing behind. It returns nil where the file system
// has no O_TMPFILE, or /proc is not mounted to name the file later; the
// caller then takes a named temporary file.
func createUnnamed(dir *beneath.Dir) (*os.File, bool) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		return nil, false
	}
	fd, err := unix.Openat(dir.Fd(), ".", unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, false
	}
	return os.NewFile(uintptr(fd), dir.Path()+"/(unnamed temporary file)"), true
}

// linkUnnamed gives f, opened by createUnnamed, the name name in dir; an
// existing name is fs.ErrExist.
func linkUnnamed(f *os.File, dir *beneath.Dir, name string) error {
	err := unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(int(f.Fd())), dir.Fd(), name, unix.AT_SYMLINK_FOLLOW)
	if err != nil {
		return &os.LinkError{Op: "link", Old: f.Name(), New: dir.Path() + "/" + name, Err: err}
	}
	return nil
}
