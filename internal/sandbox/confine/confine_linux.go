//go:build linux

package confine

import (
	"errors"
	"os"
	"path"
	"runtime"
	"slices"
	"syscall"
)

// init turns this process into the wrapper, or the probe, when it was
// started as one. Like procgroup's guardian, it is an init function so
// that every binary that links the package (the server, test binaries) can
// be its own wrapper.
func init() {
	if len(os.Args) == 2 && os.Args[1] == ProbeArg {
		os.Exit(0)
	}
	if len(os.Args) >= 2 && os.Args[1] == Arg {
		run(os.Args[2:])
	}
}

// run confines this process by the policy in args and execs the command
// that follows it; it returns only by exiting with FailCode.
func run(args []string) {
	runtime.LockOSThread() // every step below holds for this thread, and exec keeps it
	p, argv, err := Parse(args)
	if err == nil && len(argv) == 0 {
		err = errors.New("no command follows the policy")
	}
	env := os.Environ()
	if err == nil && p.EnvFD > 2 {
		env, err = readEnv(p.EnvFD)
	}
	if err == nil {
		err = p.apply(ttyPath())
	}
	if err == nil {
		err = syscall.Exec(argv[0], argv, env)
	}
	os.Stderr.WriteString(FailPrefix + err.Error() + "; the command did not run\n")
	os.Exit(FailCode)
}

// readEnv reads the command's environment from fd (NUL-separated, from
// its start) and closes it.
func readEnv(fd int) ([]string, error) {
	defer syscall.Close(fd)
	var b []byte
	buf := make([]byte, 64<<10)
	for {
		n, err := syscall.Pread(fd, buf, int64(len(b)))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, failed("read the command's environment", err)
		}
		if n == 0 {
			break
		}
		b = append(b, buf[:n]...)
	}
	var env []string
	for len(b) > 0 {
		i := indexByte(string(b), 0)
		if i < 0 {
			i = len(b)
		}
		env = append(env, string(b[:i]))
		b = b[min(i+1, len(b)):]
	}
	return env, nil
}

// stepError is the error of one step of confining, named.
type stepError struct {
	step string
	err  error
}

func (e *stepError) Error() string { return e.step + ": " + e.err.Error() }
func (e *stepError) Unwrap() error { return e.err }

// failed names err's step.
func failed(step string, err error) error { return &stepError{step: step, err: err} }

// Thread confines the calling OS thread by the policy, for good: with
// MountNS it first gives the thread a mount namespace of its own
// (unshare(CLONE_NEWNS), which needs CAP_SYS_ADMIN: root), then applies the
// policy as the wrapper does. Landlock, seccomp, no_new_privs, the dropped
// capabilities and the mount namespace then hold for this thread alone and
// for every process forked from it, never for the process's other threads.
// The caller must have locked its goroutine to the thread
// (runtime.LockOSThread) and must never unlock it, so that the thread ends
// with the goroutine; after an error the thread is half confined and must
// end too. p.ServerMountNS must name the namespace the thread starts in.
func (p *Policy) Thread() error {
	if p.MountNS {
		if err := syscall.Unshare(syscall.CLONE_NEWNS); err != nil {
			return failed("unshare mount namespace", err)
		}
	}
	return p.apply("")
}

// apply applies the policy to the calling thread: the mounts outside the
// writable set read-only, the pty tty (the command's terminal, or "") kept
// writable, and the protected paths bound (with a mount namespace),
// no_new_privs, Landlock, the seccomp filter (always where the machine has
// seccomp; socket() too for network off), and no capability left.
func (p *Policy) apply(tty string) error {
	p.DenyRead = withTargets(p.DenyRead)
	if p.MountNS {
		// A working directory that no longer has a path (the server was
		// started inside a root since deleted and made again) is kept as it
		// is: no bind can lie under a deleted directory, and commands are
		// started in a directory of their own.
		wd, wdErr := os.Getwd()
		if err := p.bindProtected(tty); err != nil {
			return err
		}
		if err := p.isolate(tty == ""); err != nil {
			return err
		}
		if wdErr == nil {
			// The working directory was entered before the binds: enter it
			// again, through them.
			if err := os.Chdir(wd); err != nil {
				return err
			}
		}
	}
	if err := prctl(prSetNoNewPrivs, 1, 0, 0, 0); err != nil {
		return failed("no_new_privs", err)
	}
	if err := p.landlock(tty); err != nil {
		return err
	}
	if p.Seccomp || p.NetworkOff {
		if err := installFilter(p.NetworkOff); err != nil {
			return err
		}
	}
	return dropCapabilities()
}

// ttyPath returns the pty this process has as stdin, or "".
func ttyPath() string {
	p, err := os.Readlink("/proc/self/fd/0")
	if err != nil || !hasPrefix(p, "/dev/pts/") {
		return ""
	}
	return p
}

// bindProtected makes the mount namespace private and binds each existing
// protected path onto itself: a mount point cannot be renamed or removed,
// and a Tree one is read-only. Each root's .git is looked up again here, so
// one made since the policy was resolved is protected too.
func (p *Policy) bindProtected(tty string) error {
	// Never change the mounts of the namespace this process was started in
	// (a wrapper run by hand, or a parent that did not unshare). The
	// thread's own namespace: a confined server thread is not the process's
	// main thread, which /proc/self names.
	self, err := os.Readlink("/proc/thread-self/ns/mnt")
	if err != nil || p.ServerMountNS == "" || self == p.ServerMountNS {
		return errors.New("not in a mount namespace of its own (" + self + `, the server's "` + p.ServerMountNS + `")`)
	}
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return failed("mount namespace", err)
	}
	if err := p.readOnlyOutside(tty); err != nil {
		return err
	}
	prot := append([]Protected(nil), p.Protect...)
	for _, root := range p.Roots {
		for _, g := range gitDirs(root) {
			prot = AppendProtected(prot, g)
		}
	}
	// Parents first, so a child's bind lands on its parent's mount.
	slices.SortStableFunc(prot, func(a, b Protected) int { return len(a.Path) - len(b.Path) })
	for _, pr := range prot {
		if _, err := os.Lstat(pr.Path); err != nil {
			continue
		}
		if err := syscall.Mount(pr.Path, pr.Path, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
			return failed("bind "+pr.Path, err)
		}
		if !pr.Tree {
			continue
		}
		var st syscall.Statfs_t
		if err := syscall.Statfs(pr.Path, &st); err != nil {
			return failed("statfs "+pr.Path, err)
		}
		// Keep the flags a user namespace may not clear (nosuid, nodev, ...).
		keep := uintptr(st.Flags) & (syscall.MS_NOSUID | syscall.MS_NODEV | syscall.MS_NOEXEC | syscall.MS_NOATIME | syscall.MS_NODIRATIME | syscall.MS_RELATIME)
		if err := syscall.Mount("", pr.Path, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY|keep, ""); err != nil {
			return failed("read-only "+pr.Path, err)
		}
	}
	return nil
}

// readOnlyOutside makes every mount read-only but the writable set: what
// Landlock does not cover (chmod, chown, utimes, xattrs of a file outside
// the writable set) fails with EROFS. Each writable path is bound onto
// itself first, then / is made read-only recursively, then the writable
// binds are made writable again.
func (p *Policy) readOnlyOutside(pty string) error {
	var binds []string
	for _, w := range p.Writable {
		if _, err := os.Stat(w); err != nil {
			continue
		}
		if err := syscall.Mount(w, w, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
			return failed("bind "+w, err)
		}
		binds = append(binds, w)
	}
	if pty != "" {
		if err := syscall.Mount(pty, pty, "", syscall.MS_BIND, ""); err == nil {
			binds = append(binds, pty)
		}
	}
	if err := mountSetattr("/", &mountAttr{attrSet: mountAttrRdonly}, atRecursive); err != nil {
		return failed("read-only /", err)
	}
	for _, b := range binds {
		if err := clearReadOnly(b); err != nil {
			return failed("writable "+b, err)
		}
	}
	return nil
}

// clearReadOnly makes the mount at dir and every mount below it writable
// again. In a user namespace a mount that the parent namespace made
// read-only is locked so, and the recursive call fails with EPERM (a
// read-only tmpfs or squashfs under /tmp failed every command): then each
// mount is cleared on its own, and a locked one stays read-only, as it is
// outside the sandbox.
func clearReadOnly(dir string) error {
	attr := &mountAttr{attrClr: mountAttrRdonly}
	err := mountSetattr(dir, attr, atRecursive)
	if err != syscall.EPERM {
		return err
	}
	for _, m := range append([]string{dir}, mountsBelow(dir)...) {
		// EACCES: a mount below a directory this user cannot enter (another
		// user's 0700 dir under /tmp) stays read-only: it could not be
		// written anyway.
		if err := mountSetattr(m, attr, 0); err != nil && err != syscall.EPERM && err != syscall.EACCES {
			return err
		}
	}
	return nil
}

// mountsBelow returns the mount points strictly below dir, from this
// thread's mountinfo (its fifth field, octal escapes undone).
func mountsBelow(dir string) []string {
	b, err := os.ReadFile("/proc/thread-self/mountinfo")
	if err != nil {
		return nil
	}
	info := string(b)
	var out []string
	for len(info) > 0 {
		line := info
		if i := indexByte(info, '\n'); i >= 0 {
			line, info = info[:i], info[i+1:]
		} else {
			info = ""
		}
		field := 0
		for field < 4 && len(line) > 0 {
			if line[0] == ' ' {
				field++
			}
			line = line[1:]
		}
		if i := indexByte(line, ' '); i >= 0 {
			line = line[:i]
		}
		if mp := unescapeOctal(line); within(mp, dir) && mp != dir {
			out = append(out, mp)
		}
	}
	return out
}

// unescapeOctal undoes mountinfo's \ooo escapes (space, tab, newline,
// backslash).
func unescapeOctal(b string) string {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' && i+3 < len(b) && isOctal(b[i+1]) && isOctal(b[i+2]) && isOctal(b[i+3]) {
			out = append(out, (b[i+1]-'0')<<6|(b[i+2]-'0')<<3|(b[i+3]-'0'))
			i += 3
			continue
		}
		out = append(out, b[i])
	}
	return string(out)
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// dropCapabilities empties the bounding, ambient, inheritable, permitted
// and effective capability sets of the calling thread.
func dropCapabilities() error {
	for c := 0; c <= capLastCap; c++ {
		_ = prctl(syscall.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0) // needs CAP_SETPCAP; without it none is held
	}
	_ = prctl(prCapAmbient, prCapAmbientClearAll, 0, 0, 0)
	if err := capsetNone(); err != nil {
		return failed("drop capabilities", err)
	}
	return nil
}

// gitDirs returns root's .git: a directory (its entry protected), or a
// .git file (protected whole) and the directories its gitdir: and their
// commondir name, as named (a bind follows their symlinks). The server
// resolved the same ones when it resolved the policy (sandbox's gitDirs);
// these are for a .git made since.
func gitDirs(root string) []Protected {
	dotgit := path.Join(root, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil {
		return nil
	}
	if fi.IsDir() {
		return []Protected{{Path: dotgit}}
	}
	out := []Protected{{Path: dotgit, Tree: true}}
	gd, ok := pointer(dotgit, "gitdir:", root)
	if !ok {
		return out
	}
	out = append(out, Protected{Path: gd})
	if cd, ok := pointer(path.Join(gd, "commondir"), "", gd); ok && cd != gd {
		out = append(out, Protected{Path: cd})
	}
	return out
}

// pointer reads the path file names after prefix, relative to dir unless
// absolute.
func pointer(file, prefix, dir string) (string, bool) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", false
	}
	target, ok := cutPrefix(trimSpace(string(b)), prefix)
	if target = trimSpace(target); !ok || target == "" {
		return "", false
	}
	if !path.IsAbs(target) {
		target = path.Join(dir, target)
	}
	return path.Clean(target), true
}
