package rpc

import (
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// waiting returns how many input bytes wait in stdin's pipe (PeekNamedPipe),
// or 0 when that cannot be known (a console, a file).
func (c *countingReader) waiting() int64 {
	f, ok := c.r.(*os.File)
	if !ok {
		return 0
	}
	var avail uint32
	r, _, _ := peekNamedPipe.Call(f.Fd(), 0, 0, 0, uintptr(unsafe.Pointer(&avail)), 0)
	if r == 0 {
		return 0
	}
	return int64(avail)
}

// peekNamedPipe is kernel32's PeekNamedPipe, which x/sys/windows does not wrap.
var peekNamedPipe = windows.NewLazySystemDLL("kernel32.dll").NewProc("PeekNamedPipe")
