package contentindex

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// lowerPriority locks the calling goroutine to its thread and puts the
// thread in the background band (PRIO_DARWIN_THREAD, PRIO_DARWIN_BG: lower
// CPU and I/O priority). The goroutine must never unlock.
func lowerPriority() {
	runtime.LockOSThread()
	const prioDarwinThread, prioDarwinBG = 3, 0x1000
	_ = unix.Setpriority(prioDarwinThread, 0, prioDarwinBG)
}
