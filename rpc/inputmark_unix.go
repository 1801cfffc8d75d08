//go:build unix

package rpc

import (
	"os"

	"golang.org/x/sys/unix"
)

// waiting returns how many input bytes wait in the kernel (FIONREAD on a
// pipe or socket on stdin; Linux spells it TIOCINQ), or 0 when that cannot
// be known.
func (c *countingReader) waiting() int64 {
	f, ok := c.r.(*os.File)
	if !ok {
		return 0
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	_ = rc.Control(func(fd uintptr) { n, _ = unix.IoctlGetInt(int(fd), fionread) })
	return int64(max(n, 0))
}
