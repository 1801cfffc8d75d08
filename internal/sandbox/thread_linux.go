//go:build linux && !toolrpc_portable

package sandbox

import (
	"errors"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/toolrpc/toolrpc/internal/sandbox/confine"
)

// Fork returns the procgroup.Spec.Fork of the policy: it forks each command
// from a thread of the server confined by the policy once, so a command
// costs a fork and no wrapper's exec. It returns nil when the policy is off
// or unavailable, and where a thread cannot hold the confinement: a mount
// namespace through a user namespace (a server that is not root) needs a
// process of its own, so Wrap starts those commands, and a command on a pty
// (the thread's /dev/pts is a devpts instance of its own, where the server's
// pty is not; internal/process leaves Fork unset for those).
//
// The thread is rebuilt, for the next command, when what it was built from
// changed: a protected path or a root's .git made, removed or replaced, a
// writable path made or replaced, an entry added to a directory on the way
// to a denied path, or a mount made or removed in the server's namespace.
// Each check is an lstat of those few paths and a poll of the mount table,
// never a walk of the workspace.
func (r *Resolved) Fork() func(start func() error) (done func(), err error) {
	if r.Usable() != nil || !r.Enforced() || r.fork == nil || r.Machine.MountNS && r.Machine.UserNS {
		return nil
	}
	return r.fork.start(r)
}

// Close retires the policy's thread once the commands forked from it are
// reaped: the session's policy was replaced (sandbox/update). A command
// forked after Close gets a thread of its own, retired when it is reaped.
func (r *Resolved) Close() {
	if r != nil && r.fork != nil {
		r.fork.close()
	}
}

// close is Close.
func (f *forker) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	if f.cur != nil {
		f.retire(f.cur)
		f.cur = nil
	}
}

// forker is a policy's confined thread, and how to know it is stale.
type forker struct {
	mu     sync.Mutex
	cur    *thread // nil before the first command, after Close or a failed setup
	closed bool
	dirs   []string // the directories on the way to a denied path (Landlock reads them); nil before the first command
}

// newForker returns the forker of a policy being resolved.
func newForker() *forker { return &forker{} }

// thread is one server thread confined by a policy, which forks the
// commands it is handed.
type thread struct {
	work    chan func()
	key     string // what it was built from (setupKey)
	live    int    // commands forked from it and not yet reaped
	retired bool   // ends once live is 0
	ended   bool   // work is closed
}

// start returns the Fork function of r.
func (f *forker) start(r *Resolved) func(start func() error) (func(), error) {
	return func(start func() error) (func(), error) {
		t, err := f.thread(r)
		if err != nil {
			return nil, err
		}
		errc := make(chan error, 1)
		t.work <- func() { errc <- start() }
		if err := <-errc; err != nil {
			f.release(t)
			return nil, err
		}
		var once sync.Once
		return func() { once.Do(func() { f.release(t) }) }, nil
	}
}

// thread returns the thread that forks r's next command, counted live:
// the current one, or a new one when none is current or what it was built
// from changed.
func (f *forker) thread(r *Resolved) (*thread, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dirs == nil {
		f.dirs = denyDirs(r.DenyRead, r.DenyGlobs)
		// A policy dropped without Close (a session that ended) retires
		// its thread once the garbage collector finds it unreachable.
		runtime.AddCleanup(r, (*forker).close, f)
	}
	now := r.Now() // a .git made since is protected, with its hooks and config; glob symlinks' targets denied
	key := now.setupKey(denyDirs(now.DenyRead, now.DenyGlobs))
	t := f.cur
	if t == nil || t.key != key {
		if t != nil {
			f.retire(t)
			f.cur = nil
		}
		policy := now.confinePolicy()
		policy.ServerMountNS = serverMountNS()
		var err error
		if t, err = newThread(policy, key); err != nil {
			return nil, &SetupError{err: err}
		}
		if f.closed {
			t.retired = true
		} else {
			f.cur = t
		}
	}
	t.live++
	return t, nil
}

// release counts one command of t reaped, and ends t when it is retired
// and none is left.
func (f *forker) release(t *thread) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t.live--
	f.end(t)
}

// retire ends t once its commands are reaped: a command started with
// Pdeathsig is killed when the thread that forked it ends. f.mu is held.
func (f *forker) retire(t *thread) {
	t.retired = true
	f.end(t)
}

// end ends t if it is retired and idle. f.mu is held.
func (f *forker) end(t *thread) {
	if t.retired && t.live == 0 && !t.ended {
		t.ended = true
		close(t.work)
		watchMounts(-1)
	}
}

// newThread starts a goroutine locked to a thread that policy confines for
// good, and returns it once confined. The goroutine never unlocks its
// thread, so the runtime ends the thread when the goroutine returns (when
// the thread is retired and idle, or its setup failed) and never runs
// another goroutine on it; the runtime makes new threads from a template
// thread, never by cloning a locked one (runtime.newm).
func newThread(policy confine.Policy, key string) (*thread, error) {
	t := &thread{work: make(chan func()), key: key}
	ready := make(chan error, 1)
	go t.serve(policy, ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	watchMounts(+1)
	return t, nil
}

// serve confines the calling goroutine's thread by policy, says so on
// ready, then runs each function handed to it until work is closed.
func (t *thread) serve(policy confine.Policy, ready chan<- error) {
	runtime.LockOSThread() // for good: see newThread
	if unix.Gettid() == unix.Getpid() {
		// The main thread cannot end (the runtime wedges it) and is what
		// /proc/self names: confine another thread, and keep this one
		// until that one is locked, so it cannot be that one.
		inner := make(chan error, 1)
		go t.serve(policy, inner)
		err := <-inner
		runtime.UnlockOSThread()
		ready <- err
		return
	}
	if err := policy.Thread(); err != nil {
		ready <- err
		return
	}
	confinedLive.Add(1)
	defer confinedLive.Add(-1)
	ready <- nil
	for f := range t.work {
		f()
	}
}

// confinedLive counts the confined threads whose goroutine has not
// returned (a thread ends just after).
var confinedLive atomic.Int64

// denyDirs returns the directories that hold a denied path or glob below
// them: Landlock grants each of their entries on its own, so an entry added
// since is reachable only once the thread is rebuilt.
func denyDirs(denyRead, denyGlobs []string) []string {
	var dirs []string
	add := func(p string) {
		for d := path.Dir(p); ; d = path.Dir(d) {
			if !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
			if d == "/" || d == "." {
				return
			}
		}
	}
	for _, d := range denyRead {
		add(d)
	}
	for _, g := range denyGlobs {
		add(g)
	}
	if dirs == nil {
		dirs = []string{}
	}
	return dirs
}

// setupKey describes what a confined thread of r (withGitDirs: its roots'
// .git as they are now) is built from that can change on disk: the mount
// generation, each writable path's inode, each protected path's (with a
// mount namespace), and the directories on the way to a denied path, with
// their change times.
func (r *Resolved) setupKey(dirs []string) string {
	var b strings.Builder
	b.WriteString(strconv.FormatUint(mountGen(), 10))
	stat := func(p string, follow, times bool) {
		var st unix.Stat_t
		var err error
		if follow {
			err = unix.Stat(p, &st)
		} else {
			err = unix.Lstat(p, &st)
		}
		b.WriteString("\x00" + p)
		if err != nil {
			b.WriteString(" -")
			return
		}
		b.WriteString(" " + strconv.FormatUint(st.Dev, 16) + ":" + strconv.FormatUint(st.Ino, 16) + ":" + strconv.FormatUint(uint64(st.Mode), 8))
		if times {
			b.WriteString(" " + strconv.FormatInt(st.Mtim.Nano(), 16) + ":" + strconv.FormatInt(st.Ctim.Nano(), 16) +
				":" + strconv.FormatUint(uint64(st.Nlink), 16) + ":" + strconv.FormatInt(st.Size, 16))
		}
	}
	for _, w := range r.Writable {
		stat(w, true, false)
	}
	for _, d := range dirs {
		stat(d, true, true)
	}
	for _, d := range r.DenyRead {
		b.WriteString("\x00deny " + d)
	}
	if r.Machine.MountNS {
		// The daemon sockets a thread masks (a tmux or agent started since
		// is masked once the thread is rebuilt).
		for _, m := range confine.DaemonSockets(r.Writable) {
			b.WriteString("\x00m" + m)
		}
		for _, p := range r.Protect {
			stat(p.Path, false, false)
			if p.Tree {
				b.WriteString(" t")
			}
		}
	}
	return b.String()
}

// mountGen counts the changes seen to the server's mount table: a mount
// made or removed outside is not in a thread's namespace (a copy, made
// private), so the thread is rebuilt. /proc/self/mounts polls with POLLPRI
// after a change. The table is watched only while a confined thread is
// alive (watchMounts): without one, the next thread is built from the
// table as it is then, so no change need be seen.
func mountGen() uint64 {
	mounts.mu.Lock()
	defer mounts.mu.Unlock()
	if mounts.fd < 0 {
		return mounts.changes
	}
	fds := []unix.PollFd{{Fd: int32(mounts.fd), Events: unix.POLLPRI}}
	for {
		n, err := unix.Poll(fds, 0)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err == nil && n > 0 && fds[0].Revents&(unix.POLLPRI|unix.POLLERR) != 0 {
			mounts.changes++
		}
		return mounts.changes
	}
}

// mounts is the watch of the server's mount table: /proc/self/mounts, the
// main thread's table, which is the server's (no confined thread is the
// main one), open while users confined threads are alive (-1 otherwise, or
// if it cannot be opened), so a session that ended leaves no fd behind.
var mounts = struct {
	mu      sync.Mutex
	fd      int
	users   int
	changes uint64
}{fd: -1}

// watchMounts counts a confined thread alive (+1) or ended (-1), opening
// the watch for the first and closing it after the last.
func watchMounts(delta int) {
	mounts.mu.Lock()
	defer mounts.mu.Unlock()
	mounts.users += delta
	switch {
	case mounts.users > 0 && mounts.fd < 0:
		if fd, err := unix.Open("/proc/self/mounts", unix.O_RDONLY|unix.O_CLOEXEC, 0); err == nil {
			mounts.fd = fd
		}
	case mounts.users == 0 && mounts.fd >= 0:
		_ = unix.Close(mounts.fd)
		mounts.fd = -1
	}
}
