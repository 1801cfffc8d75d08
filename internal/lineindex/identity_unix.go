//go:build unix

package lineindex

import (
	"os"
	"syscall"
)

// identity returns the device, inode and status-change time (Unix
// nanoseconds) of the file fi describes.
func identity(fi os.FileInfo) (dev, ino uint64, ctime int64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, false
	}
	return uint64(st.Dev), st.Ino, ctimeOf(st), true // Dev's type varies by platform
}
