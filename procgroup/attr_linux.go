//go:build linux && !toolrpc_portable

package procgroup

import (
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// subreaperOnce makes the server a child subreaper the first time a command
// runs without a cgroup.
var subreaperOnce sync.Once

func becomeSubreaper() {
	subreaperOnce.Do(func() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) })
}

// shellAttr puts the shell in a session of its own (so also a process group
// of its own), without a controlling terminal: it cannot reach the server's
// terminal through /dev/tty (TIOCSTI would push input to the host's shell).
// It is killed when the server's thread that started it dies.
func shellAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}

// ttyAttr makes the shell a session leader with the pty (its stdin) as
// controlling terminal, killed with the server.
func ttyAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0, Pdeathsig: syscall.SIGKILL}
}

// setCgroupFD starts the command in the cgroup fd (CLONE_INTO_CGROUP), or
// not (on false).
func setCgroupFD(a *syscall.SysProcAttr, fd int, on bool) {
	a.UseCgroupFD, a.CgroupFD = on, fd
}

// setPipeSize asks for a larger pipe, so a fast writer needs fewer wake-ups;
// the kernel may grant less.
func setPipeSize(w *os.File) { _, _ = unix.FcntlInt(w.Fd(), unix.F_SETPIPE_SZ, pipeBytes) }

// guardianAttr puts the guardian in its own process group; guardianDeathSig
// tells it that the thread that started it ended (awaitServerDeath checks the
// parent).
func guardianAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: guardianDeathSig}
}

// selfExe is this binary, even when its file was replaced or removed.
func selfExe() string { return "/proc/self/exe" }

// watchServer sends on gone when the server pid exits, through a pidfd;
// without one (old kernels) the guardian's stdin pipe is enough.
func watchServer(pid int, gone chan<- struct{}) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		if unix.Kill(pid, 0) != nil {
			gone <- struct{}{}
		}
		return
	}
	go func() {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			if _, err := unix.Poll(fds, -1); err != unix.EINTR {
				gone <- struct{}{}
				return
			}
		}
	}()
}

// killPid sends SIGKILL through a pidfd after checking the pid still names the
// process that was listed, so a recycled pid is never signalled.
func killPid(p procStat) {
	fd, err := unix.PidfdOpen(p.pid, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	if now, ok := readStat(p.pid); !ok || now.start != p.start {
		return
	}
	_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
}
