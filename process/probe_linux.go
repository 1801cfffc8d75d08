//go:build linux

package process

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// promptConfidence is "" on Linux: input is read from /proc, not guessed.
const promptConfidence = ""

// target is the input end a probe looks for a blocked read on: the tty of a
// pty (its master fd and the slave's device number), or the stdin pipe.
type target struct {
	master  int    // pty master fd, -1 in pipe mode
	ttyRdev uint64 // the slave's device number (pty)
	pipeIno uint64 // the stdin pipe's inode (pipe)
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

// devTTY is the device number of /dev/tty (major 5, minor 0).
var devTTY = uint64(unix.Mkdev(5, 0))

// probe is what one look at the tree found.
type probe struct {
	blocked bool // a process waits to read the target
	echo    bool // the terminal echoes what is typed (always true for a pipe)
}

// probeInput probes the process's tree for a blocked read of its input.
func (p *Process) probeInput(pids []int) probe { return probeInput(pids, p.tg) }

// probeInput looks for a process of pids blocked reading the target (SPEC
// §13.1): in read, readv or pread64 on it; in epoll_wait on an epoll set or
// in poll on an array holding it; or, on a terminal without ICANON, in poll,
// select or epoll_wait with the terminal as one of its fds. On a pty only the
// terminal's foreground process group counts.
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
	for _, pid := range pids {
		if fg >= 0 && pgrpOf(pid) != fg {
			continue
		}
		if blockedOn(pid, tg, raw) {
			pr.blocked = true
			return pr
		}
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

// pgrpOf returns pid's process group, or -1.
func pgrpOf(pid int) int {
	var buf [1024]byte
	b := readSmall("/proc/"+strconv.Itoa(pid)+"/stat", buf[:])
	if b == nil {
		return -1
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return -1
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 {
		return -1
	}
	n, err := strconv.Atoi(string(f[2]))
	if err != nil {
		return -1
	}
	return n
}

// blockedOn reports whether pid sleeps in a syscall that waits for input on
// the target.
func blockedOn(pid int, tg target, raw bool) bool {
	var buf [256]byte
	b := readSmall("/proc/"+strconv.Itoa(pid)+"/syscall", buf[:])
	if b == nil {
		return false
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return false // "running", or a kernel thread
	}
	nr, err1 := strconv.ParseInt(f[0], 10, 64)
	a0, err2 := strconv.ParseUint(strings.TrimPrefix(f[1], "0x"), 16, 64)
	a1, err3 := strconv.ParseUint(strings.TrimPrefix(f[2], "0x"), 16, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return false
	}
	switch kind := syscallKind(nr); kind {
	case sysRead:
		return tg.matches(pid, int(a0))
	case sysEpoll:
		return epollWatches(pid, int(a0), tg)
	case sysPoll:
		if pollWatches(pid, uintptr(a0), int(a1), tg) {
			return true
		}
		return raw && tg.matches(pid, 0)
	case sysSelect:
		return raw && tg.matches(pid, 0)
	}
	return false
}

type sysKind int

const (
	sysOther sysKind = iota
	sysRead
	sysPoll
	sysSelect
	sysEpoll
)

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

// maxPollFds bounds the pollfd array a probe reads from a process.
const maxPollFds = 64

// pollWatches reports whether the pollfd array at addr (n entries) in pid's
// memory asks for input on the target.
func pollWatches(pid int, addr uintptr, n int, tg target) bool {
	if n <= 0 || n > maxPollFds || addr == 0 {
		return false
	}
	buf := make([]byte, 8*n)
	local := []unix.Iovec{{Base: &buf[0], Len: uint64(len(buf))}}
	remote := []unix.RemoteIovec{{Base: addr, Len: len(buf)}}
	got, err := unix.ProcessVMReadv(pid, local, remote, 0)
	if err != nil || got != len(buf) {
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
