package contentindex

import (
	"runtime"

	"github.com/toolrpc/toolrpc/limits"
	"golang.org/x/sys/unix"
)

// lowerPriority locks the calling goroutine to its thread and gives the
// thread nice limits.IndexBuildNice and the idle I/O class. The goroutine
// must never unlock: when it returns, the runtime ends the thread instead
// of reusing it at low priority.
func lowerPriority() {
	runtime.LockOSThread()
	tid := unix.Gettid()
	_ = unix.Setpriority(unix.PRIO_PROCESS, tid, limits.IndexBuildNice)
	const ioprioWhoProcess, ioprioClassIdle, ioprioClassShift = 1, 3, 13
	_, _, _ = unix.Syscall(unix.SYS_IOPRIO_SET, ioprioWhoProcess, uintptr(tid), ioprioClassIdle<<ioprioClassShift)
}
