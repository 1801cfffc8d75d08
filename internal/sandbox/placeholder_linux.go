//go:build linux

package sandbox

import (
	"path/filepath"

	"golang.org/x/sys/unix"
)

// makePlaceholder makes path, which does not exist, as an empty directory
// (dir) or a file holding content, owned as its parent is, so that a mount
// namespace can bind it read-only. Its parent is opened with no symlink on
// the way (a command cannot steer it elsewhere) and the entry is made with
// O_EXCL. It reports whether it made path.
func makePlaceholder(path string, dir bool, content string) bool {
	pfd, err := unix.Openat2(unix.AT_FDCWD, filepath.Dir(path), &unix.OpenHow{
		Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS})
	if err != nil {
		return false
	}
	defer unix.Close(pfd)
	var st unix.Stat_t
	if err := unix.Fstat(pfd, &st); err != nil {
		return false
	}
	name := filepath.Base(path)
	if dir {
		if err := unix.Mkdirat(pfd, name, 0o755); err != nil {
			return false
		}
	} else {
		fd, err := unix.Openat(pfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
		if err != nil {
			return false
		}
		_, werr := unix.Write(fd, []byte(content))
		unix.Close(fd)
		if werr != nil {
			return false
		}
	}
	_ = unix.Fchownat(pfd, name, int(st.Uid), int(st.Gid), unix.AT_SYMLINK_NOFOLLOW)
	return true
}
