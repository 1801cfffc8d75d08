//go:build unix

package search

import (
	"io"

	"golang.org/x/sys/unix"

	"github.com/toolrpc/toolrpc/internal/beneath"
)

// rawFile is a file descriptor read with raw syscalls: os.File's poller
// registration, Stat and EOF probe read cost as much as the search on small
// files.
type rawFile int

// openRaw opens abs (a walk's file, symlink-evaluated) for reading,
// following no symlink in any component (so a directory on the way swapped
// for a symlink since the walk is not followed, SPEC §14) and never
// blocking on a FIFO (O_NONBLOCK).
func openRaw(abs string) (rawFile, bool) {
	fd, err := beneath.OpenFD(abs, unix.O_RDONLY|unix.O_NONBLOCK)
	return rawFile(fd), err == nil
}

// rawFD returns the open descriptor fd as a rawFile; false for -1.
func rawFD(fd int) (rawFile, bool) { return rawFile(fd), fd >= 0 }

func (f rawFile) close() { _ = unix.Close(int(f)) }

// num is the descriptor's number (Query.Opened).
func (f rawFile) num() int { return int(f) }

// read reads into p, retrying on EINTR.
func (f rawFile) read(p []byte) (int, error) {
	for {
		n, err := unix.Read(int(f), p)
		if err != unix.EINTR {
			return n, err
		}
	}
}

// seek moves the read offset to off bytes from the start.
func (f rawFile) seek(off int64) error {
	_, err := unix.Seek(int(f), off, io.SeekStart)
	return err
}
