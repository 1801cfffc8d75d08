package beneath

import (
	"os"
	"path/filepath"
)

// Windows has no sandbox (docs/sandbox.md): these are the plain calls.

// Open opens abs with flag.
func Open(abs string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(abs, flag, perm)
}

// Dir is a directory named by its path.
type Dir struct{ path string }

// OpenDir returns the directory abs once it exists.
func OpenDir(abs string) (*Dir, error) {
	if _, err := os.Stat(abs); err != nil {
		return nil, err
	}
	return &Dir{path: abs}, nil
}

// OpenDirNoFollow is OpenDir.
func OpenDirNoFollow(abs string) (*Dir, error) { return OpenDir(abs) }

// Path returns the directory's path.
func (d *Dir) Path() string { return d.path }

// Close does nothing.
func (d *Dir) Close() error { return nil }

// Sub makes the directory name below d unless it exists (a file there is
// removed first).
func (d *Dir) Sub(name string, perm os.FileMode) (*Dir, error) {
	p := filepath.Join(d.path, name)
	if fi, err := os.Lstat(p); err == nil && !fi.IsDir() {
		_ = os.Remove(p)
	}
	if err := os.Mkdir(p, perm); err != nil && !os.IsExist(err) {
		return nil, err
	}
	return &Dir{path: p}, nil
}

// Create makes the file name in d, never an existing one.
func (d *Dir) Create(name string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(filepath.Join(d.path, name), flag|os.O_CREATE|os.O_EXCL, perm)
}

// Rename renames from to to, both names in d.
func (d *Dir) Rename(from, to string) error {
	return os.Rename(filepath.Join(d.path, from), filepath.Join(d.path, to))
}

// Remove removes the file name in d; a missing one is not an error.
func (d *Dir) Remove(name string) error {
	if err := os.Remove(filepath.Join(d.path, name)); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// OpenFile opens the existing file name in d with flag.
func (d *Dir) OpenFile(name string, flag int) (*os.File, error) {
	return os.OpenFile(filepath.Join(d.path, name), flag, 0)
}

// Sync flushes the directory's entries, where the platform can.
func (d *Dir) Sync() error {
	f, err := os.Open(d.path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// Mkdir makes the directory name below d unless it exists.
func (d *Dir) Mkdir(name string, perm os.FileMode) (*Dir, error) {
	p := filepath.Join(d.path, name)
	if err := os.Mkdir(p, perm); err != nil && !os.IsExist(err) {
		return nil, err
	}
	return &Dir{path: p}, nil
}
