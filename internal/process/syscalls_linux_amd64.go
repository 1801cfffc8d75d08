package process

import "golang.org/x/sys/unix"

// syscallOf classifies a syscall number of /proc/PID/syscall: what it waits
// on and where its timeout is.
func syscallOf(nr int64) syscallInfo {
	switch nr {
	case unix.SYS_READ, unix.SYS_READV, unix.SYS_PREAD64, unix.SYS_PREADV, unix.SYS_PREADV2:
		return syscallInfo{kind: sysRead}
	case unix.SYS_POLL:
		return syscallInfo{kind: sysPoll, timeout: toMillis, arg: 2}
	case unix.SYS_PPOLL:
		return syscallInfo{kind: sysPoll, timeout: toTimespec, arg: 2}
	case unix.SYS_SELECT:
		return syscallInfo{kind: sysSelect, timeout: toTimeval, arg: 4}
	case unix.SYS_PSELECT6:
		return syscallInfo{kind: sysSelect, timeout: toTimespec, arg: 4}
	case unix.SYS_EPOLL_WAIT, unix.SYS_EPOLL_PWAIT:
		return syscallInfo{kind: sysEpoll, timeout: toMillis, arg: 3}
	case unix.SYS_EPOLL_PWAIT2:
		return syscallInfo{kind: sysEpoll, timeout: toTimespec, arg: 3}
	}
	return syscallInfo{}
}
