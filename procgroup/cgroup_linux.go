//go:build linux && !toolrpc_portable

package procgroup

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// cgroupBase is the cgroup v2 directory call cgroups are created in, or ""
// when cgroup v2 is not usable and Kill sweeps /proc instead.
var (
	cgroupOnce sync.Once
	cgroupBase string
	cgroupSeq  atomic.Int64
)

// Mode reports how Kill finds a command's processes: "cgroup" (cgroup.kill in
// a per-call cgroup v2) or "sweep" (process group plus a /proc sweep).
func Mode() string {
	if useCgroup() {
		return "cgroup"
	}
	return "sweep"
}

// ModeEnv, set to "sweep" in the server's environment, turns the cgroup off:
// every command is killed by the process group and /proc sweep.
const ModeEnv = "TOOLRPC_KILL_MODE"

func useCgroup() bool {
	cgroupOnce.Do(func() {
		if os.Getenv(ModeEnv) != "sweep" {
			cgroupBase = probeCgroup()
		}
	})
	return cgroupBase != ""
}

// probeCgroup finds the cgroup v2 directory of this process and checks that a
// child cgroup with cgroup.kill can be created there. It also removes empty
// call cgroups left by servers that died.
func probeCgroup() string {
	mount := cgroup2Mount()
	if mount == "" {
		return ""
	}
	own := ownCgroup()
	base := filepath.Join(mount, own)
	probe := filepath.Join(base, fmt.Sprintf("toolrpc-%d-probe", os.Getpid()))
	if err := os.Mkdir(probe, 0o755); err != nil {
		return ""
	}
	defer os.Remove(probe)
	if _, err := os.Stat(filepath.Join(probe, "cgroup.kill")); err != nil {
		return ""
	}
	sweepStaleCgroups(base)
	return base
}

// cgroup2Mount returns the mount point of the cgroup v2 hierarchy, or "".
func cgroup2Mount() string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// mountinfo: id parent maj:min root mountpoint opts ... - fstype source superopts
		fields := strings.Fields(sc.Text())
		for i, fl := range fields {
			if fl == "-" && i+1 < len(fields) && fields[i+1] == "cgroup2" && len(fields) > 4 {
				return fields[4]
			}
		}
	}
	return ""
}

// ownCgroup returns this process's cgroup v2 path ("0::<path>" in /proc/self/cgroup).
func ownCgroup() string {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "/"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "0::"); ok {
			return rest
		}
	}
	return "/"
}

// sweepStaleCgroups kills the processes left in the call cgroups of servers
// that no longer run (a server SIGKILLed together with its guardian), then
// removes the cgroups.
func sweepStaleCgroups(base string) {
	ents, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), "toolrpc-")
		if !ok || !e.IsDir() {
			continue
		}
		pidStr, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidStr)
		if err != nil || pid == os.Getpid() {
			continue
		}
		if unix.Kill(pid, 0) == nil {
			continue
		}
		c := &callCgroup{dir: filepath.Join(base, e.Name()), fd: -1}
		_, _ = c.kill()
		c.remove()
	}
}

// callCgroup is the cgroup one command runs in.
type callCgroup struct {
	dir string
	fd  int

	procsMu sync.Mutex
	procs   int // cgroup.procs, opened at the first pids (0: not yet, -1: failed or closed)
}

func newCallCgroup() (*callCgroup, error) {
	dir := filepath.Join(cgroupBase, fmt.Sprintf("toolrpc-%d-%d", os.Getpid(), cgroupSeq.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create cgroup %s: %w", dir, err)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		_ = os.Remove(dir)
		return nil, fmt.Errorf("open cgroup %s: %w", dir, err)
	}
	return &callCgroup{dir: dir, fd: fd}, nil
}

// cgroupPollMax bounds the pause between two checks that a killed cgroup is
// empty; tests do not need to change it.
var cgroupPollMax = 2 * time.Millisecond

// kill kills every process of the cgroup and returns once it is empty, with
// the pids it held just before (for reaping the ones reparented to the server).
func (c *callCgroup) kill() ([]int, error) {
	pids := c.pids()
	if err := os.WriteFile(filepath.Join(c.dir, "cgroup.kill"), []byte("1"), 0); err != nil {
		return pids, fmt.Errorf("write %s/cgroup.kill: %w", c.dir, err)
	}
	pause := 50 * time.Microsecond
	deadline := time.Now().Add(killBackstop)
	for {
		populated, err := c.populated()
		if err != nil {
			return pids, err
		}
		if !populated {
			return pids, nil
		}
		if time.Now().After(deadline) {
			return pids, fmt.Errorf("cgroup %s still populated %s after cgroup.kill", c.dir, killBackstop)
		}
		time.Sleep(pause)
		pause = min(pause*2, cgroupPollMax)
	}
}

func (c *callCgroup) pids() []int {
	// The process tools' input probe lists a tree every few milliseconds:
	// cgroup.procs stays open and is re-read with pread.
	var b []byte
	c.procsMu.Lock()
	if c.procs == 0 {
		c.procs = -1
		if fd, err := unix.Open(c.dir+"/cgroup.procs", unix.O_RDONLY|unix.O_CLOEXEC, 0); err == nil {
			c.procs = fd
		}
	}
	if c.procs > 0 {
		var buf [4096]byte
		for off := int64(0); ; {
			n, err := unix.Pread(c.procs, buf[:], off)
			if n <= 0 || err != nil {
				break
			}
			b = append(b, buf[:n]...)
			off += int64(n)
		}
	}
	c.procsMu.Unlock()
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

func (c *callCgroup) populated() (bool, error) {
	b, err := os.ReadFile(filepath.Join(c.dir, "cgroup.events"))
	if err != nil {
		return false, fmt.Errorf("read %s/cgroup.events: %w", c.dir, err)
	}
	return strings.Contains(string(b), "populated 1"), nil
}

// remove deletes the (empty) cgroup.
func (c *callCgroup) remove() {
	if c.fd >= 0 {
		_ = unix.Close(c.fd)
	}
	c.procsMu.Lock()
	if c.procs > 0 {
		_ = unix.Close(c.procs)
	}
	c.procs = -1
	c.procsMu.Unlock()
	for i := 0; i < 100; i++ {
		err := os.Remove(c.dir)
		if err == nil || errors.Is(err, os.ErrNotExist) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// killServerCgroups writes cgroup.kill in every call cgroup of server pid,
// waits for each to empty and removes it.
func killServerCgroups(base string, pid int) {
	ents, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "toolrpc-"+strconv.Itoa(pid)+"-") {
			continue
		}
		c := &callCgroup{dir: filepath.Join(base, e.Name()), fd: -1}
		_, _ = c.kill()
		c.remove()
	}
}
