//go:build unix

package sandbox

import (
	"os"
	"syscall"
)

// identity is a file's device and inode.
func identity(fi os.FileInfo) any {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return [2]uint64{uint64(st.Dev), st.Ino}
	}
	return nil
}
