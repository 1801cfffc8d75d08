//go:build linux

package confine

import (
	"os"
	"path"
	"syscall"
)

// isolate finishes the mount namespace after bindProtected, before
// Landlock (which forbids mounting): a minimal /dev with a devpts instance
// of its own, the host's daemon sockets masked, the denied paths hidden,
// and the writable set nosuid. It is applied only with MountNS. freshPTS
// gives /dev/pts an instance of its own; without it (a wrapper whose command
// runs on a pty of the host's instance, whose path it must keep: `>
// $(tty)`) the host's /dev/pts is bound whole. A confined thread forks no
// command that has a pty (sandbox.Fork), so its /dev/pts is always fresh.
func (p *Policy) isolate(freshPTS bool) error {
	// The hiding source is made in the new /dev, so it comes first.
	hidden, err := minimalDev(freshPTS)
	if err != nil {
		return err
	}
	defer syscall.Unlink(hidden)
	for _, m := range DaemonSockets(p.Writable) {
		if err := mask(m, hidden); err != nil {
			return err
		}
	}
	for _, d := range p.deniedNow() {
		if err := hide(d, hidden); err != nil {
			return err
		}
	}
	for _, w := range p.Writable {
		if _, err := os.Stat(w); err != nil || w == "/dev" || hasPrefix(w, "/dev/") {
			continue
		}
		if err := mountSetattr(w, &mountAttr{attrSet: mountAttrNosuid | mountAttrNodev}, atRecursive); err != nil && err != syscall.EPERM {
			return failed("nosuid "+w, err)
		}
	}
	return nil
}

// devNodes are the devices of the minimal /dev, bound from the host's.
var devNodes = []string{"null", "zero", "full", "random", "urandom", "tty"}

// hiddenName is the empty file, made in the new /dev and removed once bound,
// that hides denied files and daemon sockets.
const hiddenName = "/dev/.toolrpc-hidden"

// minimalDev mounts a tmpfs on /dev holding only null, zero, full,
// random, urandom and tty (bound from the host's /dev), a devpts instance of
// its own at /dev/pts (ptmx a link into it), a tmpfs of its own at /dev/shm,
// and the fd, stdin, stdout and stderr links: no disk, no other pty, no
// host shared memory. It returns the path of the hiding file it made.
func minimalDev(freshPTS bool) (string, error) {
	old, err := syscall.Open("/dev", oPath|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "", failed("open /dev", err)
	}
	defer syscall.Close(old)
	if err := syscall.Mount("tmpfs", "/dev", "tmpfs", syscall.MS_NOSUID|syscall.MS_NOEXEC, "mode=755,size=64k"); err != nil {
		return "", failed("mount /dev", err)
	}
	from := "/proc/self/fd/" + itoa(old) + "/"
	for _, n := range devNodes {
		fd, err := syscall.Open("/dev/"+n, syscall.O_CREAT|syscall.O_WRONLY|syscall.O_CLOEXEC, 0o666)
		if err != nil {
			return "", failed("make /dev/"+n, err)
		}
		_ = syscall.Close(fd)
		if err := syscall.Mount(from+n, "/dev/"+n, "", syscall.MS_BIND, ""); err != nil {
			return "", failed("bind /dev/"+n, err)
		}
	}
	for _, d := range []string{"/dev/pts", "/dev/shm"} {
		if err := syscall.Mkdir(d, 0o755); err != nil {
			return "", failed("mkdir "+d, err)
		}
	}
	links := map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"}
	if freshPTS {
		if err := syscall.Mount("devpts", "/dev/pts", "devpts", syscall.MS_NOSUID|syscall.MS_NOEXEC, "newinstance,ptmxmode=0666"); err != nil {
			return "", failed("mount /dev/pts", err)
		}
		links["ptmx"] = "pts/ptmx"
	} else {
		if err := syscall.Mount(from+"pts", "/dev/pts", "", syscall.MS_BIND, ""); err != nil {
			return "", failed("bind /dev/pts", err)
		}
		fd, err := syscall.Open("/dev/ptmx", syscall.O_CREAT|syscall.O_WRONLY|syscall.O_CLOEXEC, 0o666)
		if err != nil {
			return "", failed("make /dev/ptmx", err)
		}
		_ = syscall.Close(fd)
		if err := syscall.Mount(from+"ptmx", "/dev/ptmx", "", syscall.MS_BIND, ""); err != nil {
			return "", failed("bind /dev/ptmx", err)
		}
	}
	if err := syscall.Mount("tmpfs", "/dev/shm", "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=1777"); err != nil {
		return "", failed("mount /dev/shm", err)
	}
	for link, target := range links {
		if err := syscall.Symlink(target, "/dev/"+link); err != nil {
			return "", failed("link /dev/"+link, err)
		}
	}
	fd, err := syscall.Open(hiddenName, syscall.O_CREAT|syscall.O_WRONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "", failed("make "+hiddenName, err)
	}
	_ = syscall.Close(fd)
	return hiddenName, nil
}

// DaemonSockets returns the host's daemon sockets and their directories
// that exist now and that a command must not reach (a tmux server runs
// what it is sent, an SSH agent signs, dbus and docker start programs):
// /tmp/tmux-*, /tmp/ssh-*, /tmp/.X11-unix, /tmp/.ICE-unix, /run/user (and
// $XDG_RUNTIME_DIR), /run/dbus, /run/systemd/private, /run/docker.sock,
// /run/containerd, /run/podman and /run/*.sock; /var/run's too where it is
// not a link to /run. An entry is kept when one of writable (the host's
// sandbox.writable) is it or lies below it: the host allowed it.
func DaemonSockets(writable []string) []string {
	var out []string
	add := func(p string) {
		if _, err := os.Lstat(p); err != nil {
			return
		}
		for _, w := range writable {
			if within(w, p) {
				return
			}
		}
		for _, o := range out {
			if o == p {
				return
			}
		}
		out = append(out, p)
	}
	list := func(dir string, match func(string) bool) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			if match(e.Name()) {
				add(dir + "/" + e.Name())
			}
		}
	}
	list("/tmp", func(n string) bool {
		return hasPrefix(n, "tmux-") || hasPrefix(n, "ssh-") || n == ".X11-unix" || n == ".ICE-unix"
	})
	for _, run := range []string{"/run", "/var/run"} {
		if fi, err := os.Lstat(run); err != nil || fi.Mode()&os.ModeSymlink != 0 {
			continue
		}
		for _, n := range []string{"user", "dbus", "systemd/private", "docker.sock", "containerd", "podman"} {
			add(run + "/" + n)
		}
		list(run, func(n string) bool { return len(n) > 5 && n[len(n)-5:] == ".sock" })
	}
	if x := os.Getenv("XDG_RUNTIME_DIR"); len(x) > 1 && x[0] == '/' {
		add(path.Clean(x))
	}
	return out
}

// mask covers a daemon's socket or directory: a directory with an empty
// tmpfs of its own (a command may make its own sockets there, as its own
// tmux does), anything else with the empty hidden file.
func mask(p, hidden string) error {
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		return nil
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		if err := syscall.Mount("tmpfs", p, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, "mode=700,size=1m"); err != nil {
			return failed("mask "+p, err)
		}
		return nil
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFLNK {
		return nil
	}
	return hideFile(p, hidden)
}

// hide covers a denied path: a directory with an empty read-only tmpfs of
// mode 000, anything else with the empty hidden file, read-only. A symlink
// is covered where it leads (its target is denied too).
func hide(p, hidden string) error {
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		return nil
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		if err := syscall.Mount("tmpfs", p, "tmpfs", syscall.MS_RDONLY|syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, "mode=000,size=4k"); err != nil {
			return failed("hide "+p, err)
		}
		return nil
	}
	return hideFile(p, hidden)
}

// hideFile binds the empty hidden file over p, read-only.
func hideFile(p, hidden string) error {
	if err := syscall.Mount(hidden, p, "", syscall.MS_BIND, ""); err != nil {
		return failed("hide "+p, err)
	}
	if err := syscall.Mount("", p, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY|syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return failed("read-only "+p, err)
	}
	return nil
}

// deniedNow returns the denied paths that exist now: each DenyRead entry
// and each DenyGlobs match.
func (p *Policy) deniedNow() []string {
	var out []string
	for _, d := range p.DenyRead {
		if _, err := os.Lstat(d); err == nil {
			out = append(out, d)
		}
	}
	for _, g := range p.DenyGlobs {
		dir := path.Dir(g)
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if n := dir + "/" + e.Name(); globDenies(g, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// withTargets returns deny with the target of each entry that is a
// symlink now added (the kernel's own resolution, through an O_PATH open
// and its /proc/self/fd link): what a denied link leads to is denied too.
func withTargets(deny []string) []string {
	out := deny
	for _, d := range deny {
		var st syscall.Stat_t
		if syscall.Lstat(d, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFLNK {
			continue
		}
		fd, err := syscall.Open(d, oPath|syscall.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		t, err := os.Readlink("/proc/self/fd/" + itoa(fd))
		_ = syscall.Close(fd)
		if err == nil && len(t) > 0 && t[0] == '/' {
			if len(out) == len(deny) {
				out = append([]string(nil), deny...)
			}
			out = append(out, t)
		}
	}
	return out
}
