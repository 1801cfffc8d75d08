//go:build unix

package procgroup

import (
	"bytes"
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// procStat is what a sweep needs of /proc/<pid>/stat.
type procStat struct {
	pid, ppid, pgrp int
	state           byte
	start           uint64 // start time in clock ticks after boot
}

func (p procStat) dead() bool { return p.state == 'Z' || p.state == 'X' || p.state == 'x' }

// hasCookie reports whether the environment of pid holds cookie ("K=V").
func hasCookie(pid int, cookie []byte) bool {
	b, err := readEnviron(pid)
	if err != nil {
		return false
	}
	return bytes.HasPrefix(b, cookie[1:]) || bytes.Contains(b, cookie)
}

// killBackstop bounds how long Kill waits for killed processes to die; only a
// process stuck in uninterruptible sleep outlasts it.
var killBackstop = 30 * time.Second

// sweepPause is the pause between two sweep rounds that still found live
// processes (they may need a moment to die after SIGKILL).
var sweepPause = 200 * time.Microsecond

// sweep kills, round after round until a round finds none alive, every process
// that is the shell, shares its process group, carries the cookie, or
// descends from one of those; then it reaps by pid the ones that became the
// server's children. startTicks is the shell's start time: older processes
// cannot hold the cookie, so their environment is not read.
func sweep(shell int, cookieKV string, startTicks uint64) {
	cookie := append([]byte{0}, cookieKV...)
	cookie = append(cookie, 0)
	self := os.Getpid()
	deadline := time.Now().Add(killBackstop)
	seen := map[int]uint64{} // pid -> start time, so a recycled pid is not taken for a member
	for {
		procs := listProcs()
		member := tree(procs, self, func(p procStat) bool {
			return p.pid == shell || p.pgrp == shell || seen[p.pid] == p.start && p.start != 0 ||
				(p.start >= startTicks && !p.dead() && hasCookie(p.pid, cookie))
		})
		live := killMembers(procs, member, seen)
		reap(seen, shell, self)
		if live == 0 || time.Now().After(deadline) {
			return
		}
		time.Sleep(sweepPause)
	}
}

// tree returns the pids of procs that seed accepts and of all their
// descendants among procs (the /proc tree walk of every sweep). self, the
// server, is never a member.
func tree(procs []procStat, self int, seed func(p procStat) bool) map[int]bool {
	children := map[int][]int{}
	member := map[int]bool{}
	var queue []int
	for _, p := range procs {
		children[p.ppid] = append(children[p.ppid], p.pid)
		if p.pid != self && seed(p) {
			member[p.pid] = true
			queue = append(queue, p.pid)
		}
	}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			if !member[c] && c != self {
				member[c] = true
				queue = append(queue, c)
			}
		}
	}
	return member
}

// reap collects the exit status of every seen process that is a zombie child
// of the server, by pid. The shell is left to its Wait.
func reap(seen map[int]uint64, shell, self int) {
	for pid, start := range seen {
		if pid == shell {
			continue
		}
		st, ok := readStat(pid)
		if !ok || st.start != start {
			delete(seen, pid)
			continue
		}
		reapZombieChild(st, self)
	}
}

// reapZombieChild reaps st's process by pid if it is a zombie child of self.
// A zombie's pid cannot be reused before it is reaped, so this never reaps
// another process.
func reapZombieChild(st procStat, self int) {
	if st.ppid != self || !st.dead() {
		return
	}
	var ws unix.WaitStatus
	for {
		_, err := unix.Wait4(st.pid, &ws, unix.WNOHANG, nil)
		if !errors.Is(err, unix.EINTR) {
			return
		}
	}
}

// reapPids reaps, by pid, those of pids that are zombie children of the server.
func reapPids(pids []int, shell int) {
	self := os.Getpid()
	for _, p := range pids {
		if p == shell {
			continue
		}
		if st, ok := readStat(p); ok {
			reapZombieChild(st, self)
		}
	}
}

// killMembers kills every live process of procs that member holds, records
// each member's start time in seen (dead ones too), and returns how many it
// killed.
func killMembers(procs []procStat, member map[int]bool, seen map[int]uint64) int {
	live := 0
	for _, p := range procs {
		if !member[p.pid] {
			continue
		}
		seen[p.pid] = p.start
		if p.dead() {
			continue
		}
		live++
		killPid(p)
	}
	return live
}
