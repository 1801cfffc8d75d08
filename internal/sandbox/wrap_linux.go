//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/toolrpc/toolrpc/internal/sandbox/confine"
	"github.com/toolrpc/toolrpc/wire"
)

// Wrap returns the procgroup.Spec.Wrap of the policy: it starts this binary
// as the wrapper, in a mount namespace of its own where the machine allows
// it, which confines itself and then execs the shell with the same pid. It
// returns nil when the policy is off. It fails when the policy is
// unavailable (Usable's error). Where Fork is not nil, procgroup uses Fork
// instead.
//
// The wrapper starts with an empty environment: the command's, which the
// call chooses (LD_PRELOAD, LD_AUDIT, GLIBC_TUNABLES, GODEBUG, ...), would
// act on the wrapper before it is confined. The command's environment is
// handed over in a memfd (never in argv, which /proc shows every user) and
// applied by the exec that follows the confinement.
func (r *Resolved) Wrap() (func(cmd *exec.Cmd) error, error) {
	if err := r.Usable(); err != nil || !r.Enforced() {
		return nil, err
	}
	policy := r.Now().confinePolicy() // a .git made since, with its hooks and config; glob symlinks' targets
	policy.ServerMountNS = serverMountNS()
	return func(cmd *exec.Cmd) error {
		attr := cmd.SysProcAttr
		if attr == nil {
			attr = &syscall.SysProcAttr{}
			cmd.SysProcAttr = attr
		}
		if r.Machine.MountNS {
			ns := nsAttr(r.Machine.UserNS)
			attr.Unshareflags |= ns.Unshareflags
			attr.Cloneflags |= ns.Cloneflags
			attr.UidMappings, attr.GidMappings = ns.UidMappings, ns.GidMappings
			attr.GidMappingsEnableSetgroups = ns.GidMappingsEnableSetgroups
			if r.Machine.UserNS {
				// The wrapper needs CAP_SYS_ADMIN of its user namespace
				// across its exec to bind the protected paths.
				attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP}
			}
		}
		env, err := envFile(cmd.Env)
		if err != nil {
			return err
		}
		cmd.ExtraFiles = append(cmd.ExtraFiles, env)
		p := policy
		p.EnvFD = 2 + len(cmd.ExtraFiles) // ExtraFiles[i] is fd 3+i in the wrapper
		command := append([]string{cmd.Path}, cmd.Args[1:]...)
		cmd.Path, cmd.Args = selfExe, append([]string{selfExe}, p.Args(command)...)
		cmd.Env = []string{}
		return nil
	}, nil
}

// envFile returns a memfd holding env, NUL-separated,
// for the wrapper to read (confine.Policy.EnvFD).
func envFile(env []string) (*os.File, error) {
	fd, err := unix.MemfdCreate("toolrpc-command-env", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("sandbox: hand the command's environment to the wrapper: %w", err)
	}
	f := os.NewFile(uintptr(fd), "toolrpc-command-env")
	var b []byte
	for _, kv := range env {
		b = append(append(b, kv...), 0)
	}
	if _, err := f.Write(b); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("sandbox: hand the command's environment to the wrapper: %w", err)
	}
	return f, nil
}

// serverMountNS names the server's mount namespace, which a wrapper must
// never change.
var serverMountNS = sync.OnceValue(func() string {
	ns, _ := os.Readlink("/proc/self/ns/mnt")
	return ns
})

// selfExe is this binary, even when its file was replaced or removed.
const selfExe = "/proc/self/exe"

// confinePolicy is what the wrapper applies of r (package confine).
func (r *Resolved) confinePolicy() confine.Policy {
	return confine.Policy{
		LandlockABI: r.Machine.LandlockABI,
		MountNS:     r.Machine.MountNS,
		NetworkOff:  r.Network == wire.NetworkOff,
		Seccomp:     r.Machine.Seccomp,
		Writable:    r.Writable,
		Roots:       r.Roots,
		Protect:     r.Protect,
		DenyRead:    r.DenyRead,
		DenyGlobs:   r.DenyGlobs,
	}
}
