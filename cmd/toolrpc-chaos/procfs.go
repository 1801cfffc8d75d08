//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// proc is one process as /proc shows it.
type proc struct {
	pid, ppid int
	cmdline   string
}

func (p proc) String() string { return fmt.Sprintf("%d(ppid %d) %q", p.pid, p.ppid, p.cmdline) }

// alive reports whether pid exists and is neither a zombie nor dead.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || (b[i+2] != 'Z' && b[i+2] != 'X')
}

// procsWhere lists the live processes for which keep holds, given each
// one's environment block.
func procsWhere(keep func(p proc, env []byte) bool) []proc {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil {
			continue
		}
		p := proc{pid: pid, ppid: ppidOf(pid)}
		if cl, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil {
			p.cmdline = strings.TrimSpace(strings.ReplaceAll(string(cl), "\x00", " "))
		}
		if keep(p, env) && alive(pid) {
			out = append(out, p)
		}
	}
	return out
}

func ppidOf(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// tagged lists the live processes whose environment holds kv ("K=V").
func tagged(kv string) []proc {
	needle := []byte("\x00" + kv + "\x00")
	return procsWhere(func(_ proc, env []byte) bool {
		return bytes.Contains(append(append([]byte{0}, env...), 0), needle)
	})
}

// untilNoneTagged polls until no process carries kv or within passes, and
// returns the survivors left then.
func untilNoneTagged(kv string, within time.Duration) []proc {
	deadline := time.Now().Add(within)
	for {
		left := tagged(kv)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// killAll SIGKILLs ps (the cleanup after a survivor was reported).
func killAll(ps []proc) {
	for _, p := range ps {
		_ = syscall.Kill(p.pid, syscall.SIGKILL)
	}
}

// guardianArg is the hidden argument the server re-executes itself with to
// run its guardian (procgroup).
const guardianArg = "__toolrpc-procgroup-guardian"

// guardianOf returns the pid of serverPid's guardian, or 0.
func guardianOf(serverPid int) int {
	for _, p := range procsWhere(func(p proc, _ []byte) bool { return p.ppid == serverPid }) {
		if strings.Contains(p.cmdline, guardianArg) {
			return p.pid
		}
	}
	return 0
}

// usage is a process's resource use as /proc shows it.
type usage struct {
	rssKB, fds, threads int
}

func usageOf(pid int) (usage, bool) {
	var u usage
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return u, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "VmRSS:":
			u.rssKB, _ = strconv.Atoi(f[1])
		case "Threads:":
			u.threads, _ = strconv.Atoi(f[1])
		}
	}
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return u, false
	}
	u.fds = len(ents)
	return u, true
}

// prlimit sets resource of pid to lim.
func prlimit(pid, resource int, lim *syscall.Rlimit) error {
	return unix.Prlimit(pid, resource, &unix.Rlimit{Cur: lim.Cur, Max: lim.Max}, nil)
}
