//go:build unix

package procgroup

import (
	"golang.org/x/sys/unix"
)

// Pids returns the processes of the command alive now: the members of its
// cgroup, or, without one, the shell, its process group and session, and
// their descendants. A process may exit or start right after the call.
func (g *Group) Pids() []int {
	if g.sys.cg != nil {
		return g.sys.cg.pids()
	}
	member := tree(listProcs(), -1, func(p procStat) bool {
		return (p.pid == g.pid || p.pgrp == g.pid) && !p.dead()
	})
	out := make([]int, 0, len(member))
	for pid := range member {
		out = append(out, pid)
	}
	return out
}

// countKilled counts, as Kill starts, the processes besides the shell that
// are alive (Killed reports it).
func (g *Group) countKilled() {
	for _, pid := range g.Pids() {
		if st, ok := readStat(pid); ok && pid != g.pid && !st.dead() {
			g.killedN++
		}
	}
}

// Signal sends sig to the command's process group. It does not wait.
func (g *Group) Signal(sig unix.Signal) error {
	select {
	case <-g.killed:
		return nil
	default:
	}
	return unix.Kill(-g.pid, sig)
}

// Unread returns how many bytes (FIONREAD) of output wait in the command's
// pipes, not yet read by the Group.
func (g *Group) Unread() int {
	n := 0
	for _, f := range g.outs {
		rc, err := f.SyscallConn() // not Fd, which would make the pipe blocking
		if err != nil {
			continue
		}
		_ = rc.Control(func(fd uintptr) {
			if v, err := unix.IoctlGetInt(int(fd), fionread); err == nil {
				n += v
			}
		})
	}
	return n
}
