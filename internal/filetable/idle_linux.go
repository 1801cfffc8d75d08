//go:build linux && !toolrpc_portable

package filetable

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// idleThread locks the calling goroutine to its thread and gives the
// thread the SCHED_IDLE policy and the idle I/O class: it runs only when
// a core would otherwise idle, and its reads wait for everyone else's.
// When SCHED_IDLE is refused (a seccomp filter, an old kernel) the thread
// gets nice 19 instead. The goroutine must never unlock: when it returns,
// the runtime ends the thread instead of reusing it at idle priority. It
// returns the thread's id.
func idleThread() int {
	runtime.LockOSThread()
	tid := unix.Gettid()
	attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_IDLE}
	if unix.SchedSetAttr(tid, &attr, 0) != nil {
		_ = unix.Setpriority(unix.PRIO_PROCESS, tid, 19)
	}
	const ioprioWhoProcess, ioprioClassIdle, ioprioClassShift = 1, 3, 13
	_, _, _ = unix.Syscall(unix.SYS_IOPRIO_SET, ioprioWhoProcess, uintptr(tid), ioprioClassIdle<<ioprioClassShift)
	return tid
}

// unidleThread gives thread tid (an idleThread) back the normal policy and
// nice 0, so a call that waits for it is not held up by its priority. The
// kernel allows it only to a process with CAP_SYS_NICE (or an RLIMIT_NICE
// of 20); elsewhere it does nothing. It reports whether the kernel gave
// the thread the normal policy back.
func unidleThread(tid int) bool {
	attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_NORMAL}
	err := unix.SchedSetAttr(tid, &attr, 0)
	const ioprioWhoProcess, ioprioClassBE, ioprioClassShift = 1, 2, 13
	_, _, _ = unix.Syscall(unix.SYS_IOPRIO_SET, ioprioWhoProcess, uintptr(tid), ioprioClassBE<<ioprioClassShift|4)
	return err == nil
}
