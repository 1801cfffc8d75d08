package procgroup

import (
	"os"

	"golang.org/x/sys/unix"
)

// Pids returns the processes of the command alive now: the members of its
// cgroup, or, without one, the shell, its process group and session, and
// their descendants. A process may exit or start right after the call.
func (g *Group) Pids() []int {
	if g.cg != nil {
		return g.cg.pids()
	}
	procs := listProcs()
	children := map[int][]int{}
	var out []int
	in := map[int]bool{}
	for _, p := range procs {
		children[p.ppid] = append(children[p.ppid], p.pid)
		if (p.pid == g.pid || p.pgrp == g.pid) && !p.dead() {
			in[p.pid] = true
			out = append(out, p.pid)
		}
	}
	for i := 0; i < len(out); i++ {
		for _, c := range children[out[i]] {
			if !in[c] {
				in[c] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// Stdin returns the write end of the command's stdin pipe when the Spec set
// KeepStdin, else nil. Closing it gives the command end of file; Wait closes
// it too.
func (g *Group) Stdin() *os.File {
	if !g.keepIn {
		return nil
	}
	return g.stdinW
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

// Killed returns how many processes besides the shell Kill found alive and
// killed: the descendants that outlived the shell, once Wait returned.
func (g *Group) Killed() int {
	select {
	case <-g.killed:
	default:
		return 0
	}
	g.killOnce.Do(func() {}) // waits for a Kill in progress
	return g.killedN
}

// Unread returns how many bytes (FIONREAD, alias TIOCINQ) of output wait in the command's pipes, not
// yet read by the Group.
func (g *Group) Unread() int {
	n := 0
	for _, f := range g.outs {
		rc, err := f.SyscallConn() // not Fd, which would make the pipe blocking
		if err != nil {
			continue
		}
		_ = rc.Control(func(fd uintptr) {
			if v, err := unix.IoctlGetInt(int(fd), unix.TIOCINQ); err == nil {
				n += v
			}
		})
	}
	return n
}
