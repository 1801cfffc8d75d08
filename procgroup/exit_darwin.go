package procgroup

import (
	"errors"

	"golang.org/x/sys/unix"
)

// waitExited returns once the child pid has exited, without reaping it: a
// kqueue EVFILT_PROC NOTE_EXIT event, so its pid and process group id stay
// reserved. A child that already exited makes the registration fail
// (ESRCH), which also means it has exited.
func waitExited(pid int) {
	kq, err := unix.Kqueue()
	if err != nil {
		return
	}
	defer unix.Close(kq)
	ev := []unix.Kevent_t{{Ident: uint64(pid), Filter: unix.EVFILT_PROC, Flags: unix.EV_ADD | unix.EV_ONESHOT, Fflags: unix.NOTE_EXIT}}
	out := make([]unix.Kevent_t, 1)
	for {
		n, err := unix.Kevent(kq, ev, out, nil)
		if errors.Is(err, unix.EINTR) {
			ev = nil // registered; wait again
			continue
		}
		if err != nil || n > 0 {
			return
		}
	}
}
