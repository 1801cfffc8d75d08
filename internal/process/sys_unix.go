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
	n, err := unix.IoctlGetInt(master, fionread)
	if err != nil {
		return 0
	}
	return n
}
