package beneath

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// MkdirAll makes the directory abs (absolute, every symlink of its existing
// part resolved) and its missing parents with mode perm, each made and
// opened relative to its parent's descriptor through no symlink, and
// returns it open.
func MkdirAll(abs string, perm os.FileMode) (*Dir, error) {
	d, err := OpenDirNoFollow(abs)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return d, err
	}
	parent := filepath.Dir(abs)
	if parent == abs {
		return nil, err
	}
	p, err := MkdirAll(parent, perm)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	return p.Mkdir(filepath.Base(abs), perm)
}
