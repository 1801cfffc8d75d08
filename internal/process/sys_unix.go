//go:build unix

package process

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// supported is nil: processes run on every Unix, in both modes.
func supported(Mode) error { return nil }

// rdevOf returns the device number of f (a pty slave), or 0.
func rdevOf(f *os.File) uint64 {
	var st unix.Stat_t
	if unix.Fstat(fdOf(f), &st) != nil {
		return 0
	}
	return uint64(st.Rdev)
}

// inodeOf returns the inode of f (the stdin pipe), or 0.
func inodeOf(f *os.File) uint64 {
	var st unix.Stat_t
	if unix.Fstat(fdOf(f), &st) != nil {
		return 0
	}
	return uint64(st.Ino)
}

// signalForeground sends sig to the pty's foreground process group when it
// is not the shell's own.
func signalForeground(master, shellPid int, sig syscall.Signal) {
	if fg, err := unix.IoctlGetInt(master, unix.TIOCGPGRP); err == nil && fg != shellPid && fg > 0 {
		_ = unix.Kill(-fg, sig)
	}
}

// masterUnread returns the bytes the pty holds for its master to read.
func masterUnread(master int) int {
	settleQueue(master)
	n, err := unix.IoctlGetInt(master, fionread)
	if err != nil {
		return 0
	}
	return n
}

// settleQueue makes a tty's input queue count everything written to it. On
// Linux what one side of a pty writes reaches the other side's queue from a
// kernel work queue, which a loaded machine runs late: until then TIOCINQ
// does not see it, and a prompt could be reported before its text. poll(2)
// on the tty runs that pending work first (n_tty_poll flushes it); on other
// systems it only looks.
func settleQueue(fd int) {
	_, _ = unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 0)
}
