package walk

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// dirHandle is a directory path, listed with os.ReadDir. Windows has no
// directory descriptor to stat relative to: entries are stat'ed by path, and
// a reparse point (symlink, junction) is never entered (Lstat reports it as
// a symlink or irregular file).
type dirHandle struct{ abs string }

func openDir(abs string) (dirHandle, bool) {
	fi, err := os.Lstat(abs)
	return dirHandle{abs}, err == nil && fi.IsDir()
}

func (dirHandle) close() {}

func (d dirHandle) list(_ []byte, ents []dirent) []dirent {
	des, _ := os.ReadDir(d.abs)
	return appendEntries(ents, des)
}

// open opens nothing: there is no directory descriptor to open relative
// to, so Options.Open gets -1 and the caller opens the file by its path.
func (dirHandle) open(string) (int, fileStat, bool) { return -1, fileStat{}, false }

func closeFD(int) {}

func (d dirHandle) stat(name string) (fileStat, bool) {
	fi, err := os.Lstat(filepath.Join(d.abs, name))
	if err != nil {
		return fileStat{}, false
	}
	typ := typeOther
	switch {
	case fi.IsDir():
		typ = typeDir
	case fi.Mode().IsRegular():
		typ = typeReg
	}
	return fileStat{typ: typ, mtime: fi.ModTime().UnixNano(), size: fi.Size()}, true
}

// openFile opens a file for reading; with noFollow, a symlink or other
// reparse point is refused.
func openFile(path string, noFollow bool) (*os.File, error) {
	if noFollow {
		if fi, err := os.Lstat(path); err != nil {
			return nil, err
		} else if fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
			return nil, &os.PathError{Op: "open", Path: path, Err: errors.New("is a reparse point")}
		}
	}
	return os.Open(path)
}
