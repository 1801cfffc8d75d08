//go:build unix

package contentindex

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/walk"
	"golang.org/x/sys/unix"
)

// openIndex maps the index file at path and checks that it indexes root.
func openIndex(path, root string) (*Index, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Size < footerSize {
		return nil, fmt.Errorf("%s: %w", path, errCorrupt)
	}
	data, err := unix.Mmap(fd, 0, int(st.Size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, &os.PathError{Op: "mmap", Path: path, Err: err}
	}
	ix := &Index{data: data, ino: st.Ino}
	if ix.f, err = decodeFooter(data); err != nil {
		ix.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	ix.root = string(data[ix.f.rootOff : ix.f.rootOff+ix.f.rootLen])
	if ix.root != root {
		ix.Close()
		return nil, fmt.Errorf("%s indexes %s, not %s: %w", path, ix.root, root, errCorrupt)
	}
	if err := ix.loadDocs(); err != nil {
		ix.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ix, nil
}

// Close unmaps the file.
func (ix *Index) Close() {
	if ix.data != nil {
		_ = unix.Munmap(ix.data)
		ix.data, ix.docs = nil, nil
	}
}

// lock takes the directory's build lock, polling while another process
// holds it; it returns the function that releases it.
func (m *Manager) lock() (unlock func(), err error) {
	fd, err := unix.Open(filepath.Join(m.dir, lockName), unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: filepath.Join(m.dir, lockName), Err: err}
	}
	for {
		err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() { _ = unix.Close(fd) }, nil
		}
		if err != unix.EWOULDBLOCK && err != unix.EINTR {
			unix.Close(fd)
			return nil, fmt.Errorf("flock %s: %w", m.dir, err)
		}
		select {
		case <-m.ctx.Done():
			unix.Close(fd)
			return nil, m.ctx.Err()
		case <-time.After(lockPoll):
		}
	}
}

// scanFile reads the file at abs into set (after a Reset) and returns what
// an index records of it. Binary files (SPEC §4), files in an encoding
// grep decodes (SPEC §4.1), files larger than limits.IndexMaxFileBytes, files that change while read and files whose
// mtime lies within limits.IndexRacyWindow of now are not marked indexed:
// grep always reads them. When cut is not nil the file is read as blocks
// (see blockCutter): cut is called with set holding each block but the last
// and the offset where the next block starts; set holds the last on return; the caller must drop what cut gathered of a
// file that comes back not indexed.
func scanFile(abs string, set *triSet, buf []byte, now time.Time, cut func(set *triSet, next int64)) (size, mtime int64, flags uint32) {
	set.Reset()
	if walk.IsBinaryName(abs) {
		return 0, 0, docBinary
	}
	fd, err := unix.Open(abs, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, 0, 0
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return 0, 0, 0
	}
	size, mtime = st.Size, st.Mtim.Nano()
	if size > limits.IndexMaxFileBytes {
		return size, mtime, 0
	}
	left := size
	bc := blockCutter{set: set, cut: cut, size: blockSize(size)}
	for first := true; left > 0; first = false {
		n, err := unix.Read(fd, buf[:min(int64(len(buf)), left)])
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			break
		}
		if first {
			enc, bin, _ := walk.SniffText(buf[:min(n, limits.SniffBytes)], size <= limits.SniffBytes)
			if bin {
				if settled(fd, size, mtime, now) {
					return size, mtime, docBinary | docBinarySettled
				}
				return size, mtime, docBinary
			}
			if enc.Transcoded() {
				return size, mtime, docDecoded // grep matches its decoded text: left to the scan path
			}
		}
		bc.add(buf[:n])
		left -= int64(n)
	}
	if left != 0 || !settled(fd, size, mtime, now) {
		return size, mtime, 0
	}
	return size, mtime, docIndexed
}

// settled reports whether what was read of fd stands for the identity
// (size, mtime): the file still has it, and mtime lies outside
// limits.IndexRacyWindow of now, so a later change shows in the identity.
func settled(fd int, size, mtime int64, now time.Time) bool {
	var after unix.Stat_t
	return unix.Fstat(fd, &after) == nil && after.Size == size && after.Mtim.Nano() == mtime &&
		now.Sub(time.Unix(0, mtime)) >= limits.IndexRacyWindow
}
