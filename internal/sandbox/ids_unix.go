//go:build unix

package sandbox

import "golang.org/x/sys/unix"

// statID returns the identity and size of the file path leads to.
func statID(path string) (fileID, int64, bool) {
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil {
		return fileID{}, 0, false
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, st.Size, true
}

// fdID returns the identity and size of the file open on fd.
func fdID(fd int) (fileID, int64, bool) {
	var st unix.Stat_t
	if fd < 0 || unix.Fstat(fd, &st) != nil {
		return fileID{}, 0, false
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, st.Size, true
}
