//go:build linux

package process

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toolrpc/toolrpc/limits"
)

// promptConfidence is "" on Linux: input is read from /proc, not guessed.
const promptConfidence = ""

// target is the input end a probe looks for a blocked read on: the tty of a
// pty (its master fd and the slave's device number and path), or the stdin
// pipe.
type target struct {
	master  int    // pty master fd, -1 in pipe mode
	ttyRdev uint64 // the slave's device number (pty)
	ttyPath string // the slave's path (pty), opened to count its input queue
	pipeIno uint64 // the stdin pipe's inode (pipe)
	stdin   int    // the stdin pipe's write end (pipe), -1 on a pty
}

// matches reports whether fd n of pid is the target's input end.
func (tg target) matches(pid int, n int) bool {
	var st unix.Stat_t
	if unix.Stat("/proc/"+strconv.Itoa(pid)+"/fd/"+strconv.Itoa(n), &st) != nil {
		return false
	}
	if tg.master >= 0 {
		// /dev/tty is the controlling terminal: ours for the foreground group.
		return st.Mode&unix.S_IFMT == unix.S_IFCHR && (uint64(st.Rdev) == tg.ttyRdev || uint64(st.Rdev) == devTTY)
	}
	return st.Mode&unix.S_IFMT == unix.S_IFIFO && st.Ino == tg.pipeIno
}

// queued returns the bytes written to the target that no process has read
// yet: the slave's input queue (TIOCINQ; on a canonical terminal, only the
// complete lines) or the stdin pipe's (FIONREAD). It is 0 when the queue
// cannot be read.
func (tg target) queued() int {
	fd := tg.stdin
	if tg.master >= 0 {
		if tg.ttyPath == "" {
			return 0
		}
		// Opening the slave for an ioctl is the one way to see its input
		// queue; O_NOCTTY keeps it from becoming the server's terminal.
		var err error
		fd, err = unix.Open(tg.ttyPath, unix.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != nil {
			return 0
		}
		defer unix.Close(fd)
		settleQueue(fd)
	}
	if fd < 0 {
		return 0
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCINQ)
	if err != nil {
		return 0
	}
	return n
}

// devTTY is the device number of /dev/tty (major 5, minor 0).
var devTTY = uint64(unix.Mkdev(5, 0))

// probe is what one look at the tree found.
type probe struct {
	blocked bool // a thread waits to read the target
	echo    bool // the terminal echoes what is typed (always true for a pipe)
	// settle is, when the only waits found end by themselves within
	// limits.ProcessShortWait, the longest of their timeouts: the output
	// must have been quiet that long before the wait is taken for a prompt
	// (vim waits 100 ms after an Esc to tell it from a key's code).
	settle time.Duration
	// waits names the waits found (each thread's /proc syscall line): two
	// probes that find the same waits saw the threads asleep in between.
	waits string
}

// probeInput probes the process's tree for a blocked read of its input.
func (p *Process) probeInput(pids []int) probe { return probeInput(pids, p.tg) }

// probeInput looks for a thread of pids blocked reading the target (SPEC
// §13.1): in read, readv or pread64 on it; in epoll_wait or epoll_pwait on
// an epoll set holding it; in poll, ppoll, select or pselect6 on a set
// holding it; or, on a terminal without ICANON, in poll or select with the
// terminal as its stdin when its set cannot be read. Every thread of every
// process counts (/proc/PID/task/TID/syscall); on a pty only the terminal's
// foreground process group does.
func probeInput(pids []int, tg target) probe {
	pr := probe{echo: true}
	fg, raw := -1, false
	if tg.master >= 0 {
		pgrp, err := unix.IoctlGetInt(tg.master, unix.TIOCGPGRP)
		if err != nil {
			return pr
		}
		fg = pgrp
		if t, err := unix.IoctlGetTermios(tg.master, unix.TCGETS); err == nil {
			raw = t.Lflag&unix.ICANON == 0
			// A program that reads a raw terminal echoes by itself; only a
			// canonical terminal without ECHO hides what is typed.
			pr.echo = raw || t.Lflag&unix.ECHO != 0
		}
	}
	settle, found := time.Duration(0), false
	for _, pid := range pids {
		var threads int
		if fg >= 0 {
			var pgrp int
			if pgrp, threads = statOf(pid); pgrp != fg {
				continue
			}
		} else {
			threads = threadsOf(pid)
		}
		for _, tid := range tasksOf(pid, threads) {
			w, ok := blockedOn(pid, tid, tg, raw)
			if !ok {
				continue
			}
			pr.waits += w.line
			if !w.timed || w.timeout > limits.ProcessShortWait {
				return probe{blocked: true, echo: pr.echo, waits: pr.waits}
			}
			if !found || w.timeout < settle {
				settle = w.timeout
			}
			found = true
		}
	}
	if found {
		pr.blocked, pr.settle = true, settle
	}
	return pr
}

// readSmall reads a small /proc file into buf with three raw syscalls (the
// probe runs often; os.ReadFile costs twice as many and an allocation). It
// returns nil when the file cannot be read.
func readSmall(path string, buf []byte) []byte {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	n, err := unix.Read(fd, buf)
	unix.Close(fd)
	if err != nil || n <= 0 {
		return nil
	}
	return buf[:n]
}

// statOf returns pid's process group and number of threads from
// /proc/PID/stat, or -1 and 1.
func statOf(pid int) (pgrp, threads int) {
	var buf [1024]byte
	b := readSmall("/proc/"+strconv.Itoa(pid)+"/stat", buf[:])
	if b == nil {
		return -1, 1
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return -1, 1
	}
	// After the command: state ppid pgrp session tty_nr tpgid flags minflt
	// cminflt majflt cminflt utime stime cutime cstime priority nice
	// num_threads (fields 3 to 20 of proc(5)).
	f := bytes.Fields(b[i+1:])
	if len(f) < 18 {
		return -1, 1
	}
	pgrp, err1 := strconv.Atoi(string(f[2]))
	threads, err2 := strconv.Atoi(string(f[17]))
	if err1 != nil {
		pgrp = -1
	}
	if err2 != nil || threads < 1 {
		threads = 1
	}
	return pgrp, threads
}

// threadsOf returns pid's number of threads with one syscall: the link
// count of /proc/PID/task is 2 more (its "." and its parent's link). It
// returns 1 when it cannot tell.
func threadsOf(pid int) int {
	var st unix.Stat_t
	if unix.Stat("/proc/"+strconv.Itoa(pid)+"/task", &st) != nil || st.Nlink < 3 {
		return 1
	}
	return int(st.Nlink) - 2
}

// tasksOf returns the thread ids of pid: pid alone when it has one thread
// (no directory to list), else the entries of /proc/PID/task.
func tasksOf(pid, threads int) []int {
	if threads <= 1 {
		return []int{pid}
	}
	d, err := os.Open("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return []int{pid}
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	tids := make([]int, 0, len(names))
	for _, n := range names {
		if tid, err := strconv.Atoi(n); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids
}

// inputWait is a thread's wait for input: whether it ends by itself, and
// after how long.
type inputWait struct {
	timed   bool
	timeout time.Duration
	line    string // "TID: " and its /proc syscall line
}

// blockedOn reports whether thread tid of pid sleeps in a syscall that
// waits for input on the target, and that wait's timeout.
func blockedOn(pid, tid int, tg target, raw bool) (inputWait, bool) {
	var buf [256]byte
	b := readSmall("/proc/"+strconv.Itoa(pid)+"/task/"+strconv.Itoa(tid)+"/syscall", buf[:])
	if b == nil {
		return inputWait{}, false
	}
	f := strings.Fields(string(b))
	if len(f) < 7 {
		return inputWait{}, false // "running", or a kernel thread
	}
	nr, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return inputWait{}, false
	}
	var a [6]uint64
	for i := range a {
		if a[i], err = strconv.ParseUint(strings.TrimPrefix(f[1+i], "0x"), 16, 64); err != nil {
			return inputWait{}, false
		}
	}
	call := syscallOf(nr)
	var on bool
	switch call.kind {
	case sysRead:
		on = tg.matches(pid, int(a[0]))
	case sysEpoll:
		on = epollWatches(pid, int(a[0]), tg)
	case sysPoll:
		on = pollWatches(pid, uintptr(a[0]), int(a[1]), tg) || raw && tg.matches(pid, 0)
	case sysSelect:
		on = selectWatches(pid, int(a[0]), uintptr(a[1]), tg) || raw && tg.matches(pid, 0)
	}
	if !on {
		return inputWait{}, false
	}
	w := call.timeoutOf(pid, a)
	w.line = strconv.Itoa(tid) + ": " + string(b)
	return w, true
}

// sysKind is what a syscall waits on.
type sysKind int

const (
	sysOther  sysKind = iota
	sysRead           // read(fd, …): a0 is the fd
	sysPoll           // poll(fds, n, …): a0, a1 the pollfd array
	sysSelect         // select(n, readfds, …): a0, a1 the read set
	sysEpoll          // epoll_wait(epfd, …): a0 the epoll set
)

// timeoutKind is how a syscall's timeout is passed.
type timeoutKind int

const (
	toNone     timeoutKind = iota // the call waits until input
	toMillis                      // an int of milliseconds, -1 for none
	toTimeval                     // a struct timeval pointer, NULL for none
	toTimespec                    // a struct timespec pointer, NULL for none
)

// syscallInfo classifies one syscall number of /proc/PID/syscall.
type syscallInfo struct {
	kind    sysKind
	timeout timeoutKind
	arg     int // the argument that holds the timeout
}

// timeoutOf returns the wait's timeout from its arguments a (read from
// pid's memory when passed by pointer).
func (c syscallInfo) timeoutOf(pid int, a [6]uint64) inputWait {
	v := a[c.arg]
	switch c.timeout {
	case toMillis:
		if ms := int32(v); ms >= 0 {
			return inputWait{timed: true, timeout: time.Duration(ms) * time.Millisecond}
		}
	case toTimeval, toTimespec:
		var ts [16]byte
		if v == 0 || !readMem(pid, uintptr(v), ts[:]) {
			return inputWait{}
		}
		sec := int64(binary.NativeEndian.Uint64(ts[:8]))
		frac := int64(binary.NativeEndian.Uint64(ts[8:]))
		unit := time.Nanosecond
		if c.timeout == toTimeval {
			unit = time.Microsecond
		}
		if sec >= 0 && frac >= 0 && sec < 1<<31 {
			return inputWait{timed: true, timeout: time.Duration(sec)*time.Second + time.Duration(frac)*unit}
		}
	}
	return inputWait{}
}

// readMem reads len(buf) bytes at addr of pid's memory.
func readMem(pid int, addr uintptr, buf []byte) bool {
	local := []unix.Iovec{{Base: &buf[0], Len: uint64(len(buf))}}
	remote := []unix.RemoteIovec{{Base: addr, Len: len(buf)}}
	got, err := unix.ProcessVMReadv(pid, local, remote, 0)
	return err == nil && got == len(buf)
}

// epollWatches reports whether the epoll set epfd of pid holds the target
// for reading (from /proc/PID/fdinfo/EPFD's "tfd:" lines).
func epollWatches(pid, epfd int, tg target) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/fdinfo/" + strconv.Itoa(epfd))
	if err != nil {
		return false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || f[0] != "tfd:" || f[2] != "events:" {
			continue
		}
		fd, err1 := strconv.Atoi(f[1])
		ev, err2 := strconv.ParseUint(f[3], 16, 32)
		if err1 == nil && err2 == nil && ev&unix.EPOLLIN != 0 && tg.matches(pid, fd) {
			return true
		}
	}
	return false
}

// maxPollFds bounds the pollfd array a probe reads from a process, and
// maxSelectFds the fd_set (select's own FD_SETSIZE).
const (
	maxPollFds   = 64
	maxSelectFds = 1024
)

// pollWatches reports whether the pollfd array at addr (n entries) in pid's
// memory asks for input on the target.
func pollWatches(pid int, addr uintptr, n int, tg target) bool {
	if n <= 0 || n > maxPollFds || addr == 0 {
		return false
	}
	buf := make([]byte, 8*n)
	if !readMem(pid, addr, buf) {
		return false
	}
	for i := 0; i < n; i++ {
		fd := int32(binary.NativeEndian.Uint32(buf[8*i:]))
		events := binary.NativeEndian.Uint16(buf[8*i+4:])
		if fd >= 0 && events&unix.POLLIN != 0 && tg.matches(pid, int(fd)) {
			return true
		}
	}
	return false
}

// selectWatches reports whether the read fd_set at addr (fds below n) in
// pid's memory holds the target.
func selectWatches(pid, n int, addr uintptr, tg target) bool {
	if n <= 0 || n > maxSelectFds || addr == 0 {
		return false
	}
	buf := make([]byte, (n+63)/64*8)
	if !readMem(pid, addr, buf) {
		return false
	}
	for fd := 0; fd < n; fd++ {
		word := binary.NativeEndian.Uint64(buf[fd/64*8:]) // fd_set is an array of longs
		if word&(1<<(fd%64)) != 0 && tg.matches(pid, fd) {
			return true
		}
	}
	return false
}

// listeningPorts returns the TCP ports the processes pids listen on: their
// socket inodes found in /proc/net/tcp and tcp6 in state 0A (LISTEN).
func listeningPorts(pids []int) []int {
	inodes := map[uint64]bool{}
	for _, pid := range pids {
		dir := "/proc/" + strconv.Itoa(pid) + "/fd/"
		d, err := os.Open(dir)
		if err != nil {
			continue
		}
		names, _ := d.Readdirnames(-1)
		d.Close()
		for _, n := range names {
			link, err := os.Readlink(dir + n)
			if err != nil {
				continue
			}
			if s, ok := strings.CutPrefix(link, "socket:["); ok {
				if ino, err := strconv.ParseUint(strings.TrimSuffix(s, "]"), 10, 64); err == nil {
					inodes[ino] = true
				}
			}
		}
	}
	if len(inodes) == 0 {
		return nil
	}
	seen := map[int]bool{}
	var ports []int
	for _, pid := range pids[:1] {
		for _, file := range []string{"tcp", "tcp6"} {
			for _, p := range listenTable("/proc/"+strconv.Itoa(pid)+"/net/"+file, inodes) {
				if !seen[p] {
					seen[p] = true
					ports = append(ports, p)
				}
			}
		}
	}
	return ports
}

// listenTable returns the local ports of the LISTEN sockets of a
// /proc/net/tcp-format file whose inode is in inodes.
func listenTable(path string, inodes map[uint64]bool) []int {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var ports []int
	for i, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if i == 0 || len(f) < 10 || f[3] != "0A" {
			continue
		}
		ino, err := strconv.ParseUint(f[9], 10, 64)
		if err != nil || !inodes[ino] {
			continue
		}
		_, hexPort, ok := strings.Cut(f[1], ":")
		port, err := strconv.ParseUint(hexPort, 16, 16)
		if ok && err == nil {
			ports = append(ports, int(port))
		}
	}
	return ports
}

// fionread counts the bytes a pty holds for its master (Linux: TIOCINQ).
const fionread = unix.TIOCINQ
