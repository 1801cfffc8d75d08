//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/toolrpc/toolrpc/internal/sandbox/confine"
)

// Probe returns what this machine enforces, probed once per process: the
// Landlock ABI, seccomp, and whether a wrapper can have a mount namespace
// (tried once by starting this binary in one).
var Probe = sync.OnceValue(func() Machine {
	m := Machine{OS: "linux"}
	abi, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno == 0 {
		m.LandlockABI = int(abi)
	}
	_, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
	m.Seccomp = err == nil
	m.UserNS = os.Geteuid() != 0
	m.MountNS = probeMountNS(m.UserNS)
	return m
})

// probeMountNS reports that this binary starts in a mount namespace of its
// own (it exits at once when started with confine.ProbeArg).
func probeMountNS(userNS bool) bool {
	cmd := exec.Command(selfExe, confine.ProbeArg)
	cmd.SysProcAttr = nsAttr(userNS)
	return cmd.Run() == nil
}

// nsAttr is the SysProcAttr that starts a wrapper in a mount namespace of
// its own: through a user namespace that maps the server's ids to themselves
// when the server is not root.
func nsAttr(userNS bool) *syscall.SysProcAttr {
	if !userNS {
		return &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	}
	uid, gid := os.Getuid(), os.Getgid()
	return &syscall.SysProcAttr{
		Cloneflags:                 syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		GidMappingsEnableSetgroups: false,
	}
}
