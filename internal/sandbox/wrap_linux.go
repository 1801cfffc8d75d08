//go:build linux

package sandbox

import (
	"os"
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
func (r *Resolved) Wrap() (func(path string, argv []string, attr *syscall.SysProcAttr) (string, []string), error) {
	if err := r.Usable(); err != nil || !r.Enforced() {
		return nil, err
	}
	policy := r.Now().confinePolicy() // a .git made since, with its hooks and config; glob symlinks' targets
	policy.ServerMountNS = serverMountNS()
	return func(path string, argv []string, attr *syscall.SysProcAttr) (string, []string) {
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
		command := append([]string{path}, argv[1:]...)
		return selfExe, append([]string{selfExe}, policy.Args(command)...)
	}, nil
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
		Writable:    r.Writable,
		Roots:       r.Roots,
		Protect:     r.Protect,
		DenyRead:    r.DenyRead,
		DenyGlobs:   r.DenyGlobs,
	}
}
