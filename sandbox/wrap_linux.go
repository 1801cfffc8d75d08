//go:build linux

package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/toolrpc/toolrpc/wire"
)

// wrapArg, as the first argument, makes this binary the sandbox wrapper:
// argv is [exe, wrapArg, policy JSON, shell, shell args...].
const wrapArg = "__toolrpc-sandbox"

// init turns this process into the wrapper when it was started as one. Like
// procgroup's guardian, it is an init function so that every binary that
// links the package (the server, test binaries) can be its own wrapper.
func init() {
	if len(os.Args) >= 4 && os.Args[1] == wrapArg {
		runWrapper(os.Args[2], os.Args[3:])
	}
}

// wrapFailCode is the exit code of a wrapper that could not confine the
// command: it never runs the command unconfined.
const wrapFailCode = 125

// wrapFailPrefix starts the one line a failed wrapper writes to stderr.
const wrapFailPrefix = "toolrpc sandbox: "

// Wrap returns the procgroup.Spec.Wrap of the policy: it starts this binary
// as the wrapper, in a mount namespace of its own where the machine allows
// it, which confines itself and then execs the shell with the same pid. It
// returns nil when the policy is off. It fails when the policy is
// unavailable (Usable's error).
func (r *Resolved) Wrap() (func(path string, argv []string, attr *syscall.SysProcAttr) (string, []string), error) {
	if err := r.Usable(); err != nil || !r.Enforced() {
		return nil, err
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
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
		out := append([]string{selfExe, wrapArg, string(b), path}, argv[1:]...)
		return selfExe, out
	}, nil
}

// selfExe is this binary, even when its file was replaced or removed.
const selfExe = "/proc/self/exe"

// runWrapper confines this process by the policy in JSON and execs the
// shell; it returns only by exiting with wrapFailCode.
func runWrapper(policy string, argv []string) {
	runtime.LockOSThread() // every step below holds for this thread, and exec keeps it
	var r Resolved
	err := json.Unmarshal([]byte(policy), &r)
	if err == nil {
		err = r.confine()
	}
	if err == nil {
		err = syscall.Exec(argv[0], argv, os.Environ())
	}
	fmt.Fprintf(os.Stderr, "%s%v; the command did not run\n", wrapFailPrefix, err)
	os.Exit(wrapFailCode)
}

// confine applies the policy to the calling thread: protected paths bound
// read-only (with a mount namespace), no_new_privs, Landlock, seccomp for
// network off, and no capability left.
func (r *Resolved) confine() error {
	if r.Machine.MountNS {
		wd, err := os.Getwd()
		if err == nil {
			err = r.bindProtected()
		}
		if err == nil {
			// The working directory was entered before the binds: enter it
			// again, through them.
			err = os.Chdir(wd)
		}
		if err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := r.landlock(); err != nil {
		return err
	}
	if r.Network == wire.NetworkOff {
		if err := installNetworkOff(); err != nil {
			return err
		}
	}
	return dropCapabilities()
}

// landlock builds and applies the policy's Landlock ruleset: read (and
// execute) everywhere but the deny list, every right on the writable set
// (around the deny list too), TCP denied with network off, and signals and
// abstract Unix sockets scoped to the sandbox.
func (r *Resolved) landlock() error {
	abi := r.Machine.LandlockABI
	scopes := uint64(unix.LANDLOCK_SCOPE_SIGNAL)
	if r.Network == wire.NetworkOff {
		scopes |= unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
	}
	rs, err := newRuleset(abi, r.Network == wire.NetworkOff, scopes)
	if err != nil {
		return err
	}
	denied, holds := r.denied, r.holdsDenied()
	read := uint64(fsRead | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV)
	// A directory on the way to a denied path may be listed, not more: its
	// entries get their own rules.
	if err := rs.allowAround("/", read, unix.LANDLOCK_ACCESS_FS_READ_DIR, denied, holds); err != nil {
		return err
	}
	all := rs.handled
	for _, w := range r.Writable {
		if err := rs.allowAround(w, all, all&^fileRights, denied, holds); err != nil {
			return err
		}
	}
	if pty := ttyPath(); pty != "" {
		if err := rs.allow(pty, all); err != nil {
			return err
		}
	}
	return rs.restrict()
}

// ttyPath returns the pty this process has as stdin, or "".
func ttyPath() string {
	p, err := os.Readlink("/proc/self/fd/0")
	if err != nil || len(p) < len("/dev/pts/") || p[:len("/dev/pts/")] != "/dev/pts/" {
		return ""
	}
	return p
}

// bindProtected makes the mount namespace private and binds each existing
// protected path onto itself: a mount point cannot be renamed or removed,
// and a Tree one is read-only. The .git directories are found again here, so
// one made since the policy was resolved is protected too.
func (r *Resolved) bindProtected() error {
	// Never change the mounts of the namespace this process was started in
	// (a wrapper run by hand, or a parent that did not unshare).
	self, err1 := os.Readlink("/proc/self/ns/mnt")
	parent, err2 := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", os.Getppid()))
	if err1 != nil || err2 != nil || self == parent {
		return fmt.Errorf("not in a mount namespace of its own (%s, parent %s)", self, parent)
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("mount namespace: %w", err)
	}
	if err := r.readOnlyOutside(); err != nil {
		return err
	}
	prot := slices.Clone(r.Protect)
	for _, root := range r.Roots {
		for _, g := range gitDirs(root) {
			prot = appendProtected(prot, Protected{Path: g.path, Tree: g.file})
		}
	}
	// Parents first, so a child's bind lands on its parent's mount.
	slices.SortFunc(prot, func(a, b Protected) int { return len(a.Path) - len(b.Path) })
	for _, p := range prot {
		if _, err := os.Lstat(p.Path); err != nil {
			continue
		}
		if err := unix.Mount(p.Path, p.Path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s: %w", p.Path, err)
		}
		if !p.Tree {
			continue
		}
		var st unix.Statfs_t
		if err := unix.Statfs(p.Path, &st); err != nil {
			return fmt.Errorf("statfs %s: %w", p.Path, err)
		}
		// Keep the flags a user namespace may not clear (nosuid, nodev, ...).
		keep := uintptr(st.Flags) & (unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC | unix.MS_NOATIME | unix.MS_NODIRATIME | unix.MS_RELATIME)
		if err := unix.Mount("", p.Path, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|keep, ""); err != nil {
			return fmt.Errorf("read-only %s: %w", p.Path, err)
		}
	}
	return nil
}

// readOnlyOutside makes every mount read-only but the writable set: what
// Landlock does not cover (chmod, chown, utimes, xattrs of a file outside
// the writable set) fails with EROFS. Each writable path is bound onto
// itself first, then / is made read-only recursively, then the writable
// binds are made writable again.
func (r *Resolved) readOnlyOutside() error {
	var binds []string
	for _, w := range r.Writable {
		if _, err := os.Stat(w); err != nil {
			continue
		}
		if err := unix.Mount(w, w, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s: %w", w, err)
		}
		binds = append(binds, w)
	}
	if pty := ttyPath(); pty != "" {
		if err := unix.Mount(pty, pty, "", unix.MS_BIND, ""); err == nil {
			binds = append(binds, pty)
		}
	}
	ro := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, ro); err != nil {
		return fmt.Errorf("read-only /: %w", err)
	}
	rw := &unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY}
	for _, b := range binds {
		if err := unix.MountSetattr(unix.AT_FDCWD, b, unix.AT_RECURSIVE, rw); err != nil {
			return fmt.Errorf("writable %s: %w", b, err)
		}
	}
	return nil
}

// dropCapabilities empties the bounding, ambient, inheritable, permitted
// and effective capability sets of the calling thread.
func dropCapabilities() error {
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		_ = unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0) // needs CAP_SETPCAP; without it none is held
	}
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	return nil
}
