package search

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

// rawFile is an open file; Windows has no cheaper path than os.File.
type rawFile struct{ f *os.File }

// num is -1: Query.Opened has no descriptor to judge here.
func (f rawFile) num() int { return -1 }

// openRaw opens abs for reading, refusing a symlink or other reparse point
// (the walk never follows one).
func openRaw(abs string) (rawFile, bool) {
	fi, err := os.Lstat(abs)
	if err != nil || fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
		return rawFile{}, false
	}
	f, err := os.Open(abs)
	return rawFile{f}, err == nil
}

// rawFD reports false: the walk opens no file on Windows (its
// Options.Open gets -1).
func rawFD(int) (rawFile, bool) { return rawFile{}, false }

func (f rawFile) close() { _ = f.f.Close() }

// read reads into p; end of file is (0, nil), as read(2) reports it.
func (f rawFile) read(p []byte) (int, error) {
	n, err := f.f.Read(p)
	if errors.Is(err, io.EOF) {
		return n, nil
	}
	return n, err
}

// seek moves the read offset to off bytes from the start.
func (f rawFile) seek(off int64) error {
	_, err := f.f.Seek(off, io.SeekStart)
	return err
}
