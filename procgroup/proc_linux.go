package procgroup

import (
	"bytes"
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// readStat parses /proc/<pid>/stat. The command name may hold spaces and
// parentheses, so fields are taken after the last ')'.
// statBufBytes holds any /proc/<pid>/stat line (comm is at most 64 bytes).
const statBufBytes = 1024

func readStat(pid int) (procStat, bool) {
	// Raw open/read/close: one stat line fits the buffer, and a sweep reads
	// many of them.
	fd, err := unix.Open("/proc/"+strconv.Itoa(pid)+"/stat", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return procStat{}, false
	}
	var buf [statBufBytes]byte
	n, err := unix.Read(fd, buf[:])
	unix.Close(fd)
	if err != nil || n <= 0 {
		return procStat{}, false
	}
	return parseStat(pid, buf[:n])
}

func parseStat(pid int, b []byte) (procStat, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return procStat{}, false
	}
	f := bytes.Fields(b[i+2:])
	// f[0]=state f[1]=ppid f[2]=pgrp ... f[19]=starttime (field 22 overall)
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	pgrp, err2 := strconv.Atoi(string(f[2]))
	start, err3 := strconv.ParseUint(string(f[19]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return procStat{}, false
	}
	return procStat{pid: pid, ppid: ppid, pgrp: pgrp, state: f[0][0], start: start}, true
}

// listProcs reads the stat of every process.
func listProcs() []procStat {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	out := make([]procStat, 0, len(names))
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		if st, ok := readStat(pid); ok {
			out = append(out, st)
		}
	}
	return out
}

// readEnviron returns the environment block of pid ("K=V\x00..."), read
// from /proc.
func readEnviron(pid int) ([]byte, error) {
	return os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
}

// ownPIDNamespace is this process's PID namespace, as /proc/self/ns/pid reads.
var ownPIDNamespace = sync.OnceValue(func() string {
	ns, _ := os.Readlink("/proc/self/ns/pid")
	return ns
})

// inOwnPIDNamespace reports whether pid is in this process's PID namespace.
// Unreadable counts as not: a process that cannot be judged is left alone.
func inOwnPIDNamespace(pid int) bool {
	ns, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/pid")
	return err == nil && ns != "" && ns == ownPIDNamespace()
}

// fionread is the ioctl that counts the unread bytes of a pipe (FIONREAD;
// Linux spells it TIOCINQ).
const fionread = unix.TIOCINQ
