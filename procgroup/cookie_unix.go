//go:build unix

package procgroup

import (
	"os"
	"time"
)

// NewCookie returns a fresh cookie for CookieEnv, naming this server as
// every command's cookie does, so the guardian and later sweeps kill its
// holders when the server dies. A caller that sets it in a running shell's
// environment (a shell session's command, SPEC §6.7) can later kill what
// that command started with KillCookie.
func NewCookie() string {
	Guard()
	return newCookie()
}

// KillCookie kills, round after round until a round finds none alive, every
// process whose environment holds CookieEnv=cookie and every descendant of
// one, then reaps by pid the ones that became the server's children. The
// server is never killed, nor any process that neither holds the cookie nor
// descends from a holder (a session's shell, whose own environment is the
// one it started with). It returns how many processes the first round found
// alive.
func KillCookie(cookie string) int {
	kv := append([]byte{0}, CookieEnv+"="+cookie...)
	kv = append(kv, 0)
	self := os.Getpid()
	deadline := time.Now().Add(killBackstop)
	seen := map[int]uint64{}
	first := -1
	for {
		procs := listProcs()
		member := tree(procs, self, func(p procStat) bool {
			return seen[p.pid] == p.start && p.start != 0 || (!p.dead() && hasCookie(p.pid, kv))
		})
		live := killMembers(procs, member, seen)
		if first < 0 {
			first = live
		}
		reap(seen, -1, self)
		if live == 0 || time.Now().After(deadline) {
			return first
		}
		time.Sleep(sweepPause)
	}
}
