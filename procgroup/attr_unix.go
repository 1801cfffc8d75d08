//go:build unix && (!linux || toolrpc_portable)

package procgroup

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// The portable process tree (macOS; Linux under toolrpc_portable): no
// cgroup, no child subreaper, no parent-death signal, no pidfd. Kill signals
// the process group and sweeps the process table for descendants and cookie
// holders; descendants orphaned by their parent are found by their cookie
// (they are reparented to init/launchd, not to the server). The guardian
// learns of the server's death from its stdin pipe alone.

// Mode reports how Kill finds a command's processes: always "sweep" here.
func Mode() string { return "sweep" }

// ModeEnv is accepted for compatibility; there is only the sweep here.
const ModeEnv = "TOOLRPC_KILL_MODE"

func useCgroup() bool { return false }

// cgroupBase is always "" here.
const cgroupBase = ""

// callCgroup is never made here.
type callCgroup struct{ fd int }

func newCallCgroup() (*callCgroup, error)  { return nil, syscall.ENOTSUP }
func (c *callCgroup) kill() ([]int, error) { return nil, syscall.ENOTSUP }
func (c *callCgroup) remove()              {}
func (c *callCgroup) pids() []int          { return nil }
func killServerCgroups(string, int)        {}

func becomeSubreaper() {}

func shellAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// ttyAttr makes the shell a session leader with the pty (its stdin) as
// controlling terminal.
func ttyAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
}

func setCgroupFD(*syscall.SysProcAttr, int, bool) {}

func setPipeSize(*os.File) {}

func guardianAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// selfExe is this binary as os.Executable finds it.
func selfExe() string {
	if p, err := os.Executable(); err == nil {
		return p
	}
	return os.Args[0]
}

// watchServer sends on gone at once if the server pid is already gone; the
// guardian's stdin pipe reports a later death.
func watchServer(pid int, gone chan<- struct{}) {
	if unix.Kill(pid, 0) == unix.ESRCH {
		gone <- struct{}{}
	}
}

// killPid sends SIGKILL after checking the pid still names the process that
// was listed (no pidfd here: a pid recycled between the check and the kill,
// a window of microseconds, could be signalled).
func killPid(p procStat) {
	if now, ok := readStat(p.pid); !ok || now.start != p.start {
		return
	}
	_ = unix.Kill(p.pid, unix.SIGKILL)
}
