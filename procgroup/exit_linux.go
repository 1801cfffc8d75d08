package procgroup

import (
	"errors"

	"golang.org/x/sys/unix"
)

// waitExited returns once the child pid has exited, without reaping it
// (waitid WNOWAIT), so its pid and process group id stay reserved.
func waitExited(pid int) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return
		}
	}
}
