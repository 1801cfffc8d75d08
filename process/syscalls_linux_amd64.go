package process

import "golang.org/x/sys/unix"

// syscallKind classifies a syscall number of /proc/PID/syscall.
func syscallKind(nr int64) sysKind {
	switch nr {
	case unix.SYS_READ, unix.SYS_READV, unix.SYS_PREAD64, unix.SYS_PREADV, unix.SYS_PREADV2:
		return sysRead
	case unix.SYS_POLL, unix.SYS_PPOLL:
		return sysPoll
	case unix.SYS_SELECT, unix.SYS_PSELECT6:
		return sysSelect
	case unix.SYS_EPOLL_WAIT, unix.SYS_EPOLL_PWAIT, unix.SYS_EPOLL_PWAIT2:
		return sysEpoll
	}
	return sysOther
}
