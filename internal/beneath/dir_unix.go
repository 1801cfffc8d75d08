//go:build unix

package beneath

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Dir is a directory held open; what it makes and opens below it is
// reached relative to its descriptor, through no symlink.
type Dir struct {
	path string
	fd   int
}

// OpenDir opens the directory abs. abs is the server's own path (its
// symlinks, if any, are the host's and followed); what lies below it is
// reached through the Dir.
func OpenDir(abs string) (*Dir, error) {
	fd, err := unix.Open(abs, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: abs, Err: err}
	}
	return &Dir{path: abs, fd: fd}, nil
}

// OpenDirNoFollow opens the directory abs (absolute, every symlink
// resolved) following no symlink: ErrSymlink when one appeared since.
func OpenDirNoFollow(abs string) (*Dir, error) {
	fd, err := openFD(unix.AT_FDCWD, abs, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: abs, Err: err}
	}
	return &Dir{path: abs, fd: fd}, nil
}

// Path returns the directory's path as it was opened.
func (d *Dir) Path() string { return d.path }

// Fd returns the directory's descriptor, valid until Close.
func (d *Dir) Fd() int { return d.fd }

// Close closes the directory.
func (d *Dir) Close() error { return unix.Close(d.fd) }

// Sub makes the directory name below d (mode perm) unless it exists, and
// opens it, never through a symlink: a symlink or other non-directory at
// name (a command's doing, in a directory commands may write) is removed
// and the directory made in its place.
func (d *Dir) Sub(name string, perm os.FileMode) (*Dir, error) {
	p := filepath.Join(d.path, name)
	for try := 0; ; try++ {
		if err := unix.Mkdirat(d.fd, name, uint32(perm.Perm())); err != nil && !errors.Is(err, unix.EEXIST) {
			return nil, &os.PathError{Op: "mkdir", Path: p, Err: err}
		}
		fd, err := openFD(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err == nil {
			return &Dir{path: p, fd: fd}, nil
		}
		if try > 0 || !errors.Is(err, ErrSymlink) && !errors.Is(err, unix.ENOTDIR) {
			return nil, &os.PathError{Op: "open", Path: p, Err: err}
		}
		if err := unix.Unlinkat(d.fd, name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
			return nil, &os.PathError{Op: "remove", Path: p, Err: err}
		}
	}
}

// Create makes the file name in d (O_CREAT|O_EXCL: never an existing name,
// nor a symlink's target) with flag and mode perm, and opens it.
func (d *Dir) Create(name string, flag int, perm os.FileMode) (*os.File, error) {
	p := filepath.Join(d.path, name)
	fd, err := openFD(d.fd, name, flag|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW, uint32(perm.Perm()))
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: p, Err: err}
	}
	return os.NewFile(uintptr(fd), p), nil
}

// Rename renames from to to, both names in d.
func (d *Dir) Rename(from, to string) error {
	if err := unix.Renameat(d.fd, from, d.fd, to); err != nil {
		return &os.LinkError{Op: "rename", Old: filepath.Join(d.path, from), New: filepath.Join(d.path, to), Err: err}
	}
	return nil
}

// Remove removes the file name in d (a symlink itself, never its target);
// a name that does not exist is not an error.
func (d *Dir) Remove(name string) error {
	if err := unix.Unlinkat(d.fd, name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return &os.PathError{Op: "remove", Path: filepath.Join(d.path, name), Err: err}
	}
	return nil
}

// OpenFile opens the existing file name in d with flag, not following a
// symlink there.
func (d *Dir) OpenFile(name string, flag int) (*os.File, error) {
	p := filepath.Join(d.path, name)
	fd, err := openFD(d.fd, name, flag|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: p, Err: err}
	}
	return os.NewFile(uintptr(fd), p), nil
}

// Sync flushes the directory's entries to disk.
func (d *Dir) Sync() error { return unix.Fsync(d.fd) }

// Mkdir makes the directory name below d (mode perm) unless it exists, and
// opens it through no symlink: a symlink there is ErrSymlink.
func (d *Dir) Mkdir(name string, perm os.FileMode) (*Dir, error) {
	p := filepath.Join(d.path, name)
	if err := unix.Mkdirat(d.fd, name, uint32(perm.Perm())); err != nil && !errors.Is(err, unix.EEXIST) {
		return nil, &os.PathError{Op: "mkdir", Path: p, Err: err}
	}
	fd, err := openFD(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: p, Err: err}
	}
	return &Dir{path: p, fd: fd}, nil
}
