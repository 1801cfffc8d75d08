//go:build unix

package procgroup

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Start runs the command. The caller must call Wait.
func Start(spec Spec) (*Group, error) { return StartContext(context.Background(), spec) }

// StartContext is Start, except that a ctx already done when the command is
// about to be spawned fails the start with ctx's error: a cancelled call never
// starts its command. Once started, the command is not tied to ctx (see Kill).
func StartContext(ctx context.Context, spec Spec) (*Group, error) {
	shell, err := exec.LookPath("bash")
	if err != nil {
		if shell, err = exec.LookPath("sh"); err != nil {
			return nil, fmt.Errorf("start %q: no bash or sh: %w", spec.Command, err)
		}
	}
	Guard()
	cookie := newCookie()
	g := newGroup(cookie, &spec)
	cmd := exec.Command(shell, "-c", spec.Command)
	cmd.Dir = spec.Dir
	cmd.Env = withoutNames(append(os.Environ(), spec.Env...), spec.Unset)
	cmd.Env = append(cmd.Env, CookieEnv+"="+cookie)
	cmd.SysProcAttr = shellAttr()

	var closeAfterStart []*os.File
	if spec.TTY != nil {
		cmd.Stdin, cmd.Stdout, cmd.Stderr = spec.TTY, spec.TTY, spec.TTY
		cmd.SysProcAttr = ttyAttr()
	} else if closeAfterStart, err = g.pipes(cmd, &spec); err != nil {
		return nil, err
	}
	if spec.Wrap != nil && spec.Fork == nil {
		extra := len(cmd.ExtraFiles)
		err = spec.Wrap(cmd)
		closeAfterStart = append(closeAfterStart, cmd.ExtraFiles[extra:]...)
	}
	if err == nil {
		cmd, err = g.spawn(ctx, cmd, spec.noCgroup, spec.Fork)
	}
	closeAll(closeAfterStart)
	if err != nil {
		closeAll(g.outs)
		if g.stdinW != nil {
			_ = g.stdinW.Close()
		}
		return nil, fmt.Errorf("start %q: %w", spec.Command, err)
	}
	g.cmd = cmd
	g.pid = cmd.Process.Pid
	if st, ok := readStat(g.pid); ok {
		g.sys.start = st.start
	}
	g.serve(&spec)
	return g, nil
}

// spawn starts cmd in a cgroup of its own where the machine allows it (not
// when noCgroup), else as a child of this subreaper, and returns the
// command that runs. A ctx already done fails it before the spawn. With
// fork, cmd.Start runs through it (Spec.Fork).
func (g *Group) spawn(ctx context.Context, cmd *exec.Cmd, noCgroup bool, fork func(func() error) (func(), error)) (*exec.Cmd, error) {
	start := func(cmd *exec.Cmd) error {
		if fork == nil {
			return cmd.Start()
		}
		done, err := fork(cmd.Start)
		g.forked = done
		return err
	}
	if !noCgroup && useCgroup() {
		if cg, err := newCallCgroup(); err == nil {
			g.sys.cg = cg
			setCgroupFD(cmd.SysProcAttr, cg.fd, true)
		}
	} else {
		becomeSubreaper()
	}
	err := ctx.Err()
	if err == nil {
		err = start(cmd)
	}
	if err != nil && g.sys.cg != nil && ctx.Err() == nil {
		// The kernel may refuse CLONE_INTO_CGROUP; run this command without it.
		g.sys.cg.remove()
		g.sys.cg = nil
		setCgroupFD(cmd.SysProcAttr, -1, false)
		becomeSubreaper()
		// An exec.Cmd starts at most once: retry with a fresh one.
		cmd = &exec.Cmd{Path: cmd.Path, Args: cmd.Args, Env: cmd.Env, Dir: cmd.Dir, ExtraFiles: cmd.ExtraFiles,
			Stdin: cmd.Stdin, Stdout: cmd.Stdout, Stderr: cmd.Stderr, SysProcAttr: cmd.SysProcAttr}
		err = start(cmd)
	}
	if err != nil && g.sys.cg != nil {
		g.sys.cg.remove()
	}
	return cmd, err
}

// newCookie returns a fresh cookie: serverPrefix, so the guardian and later
// sweeps know whose command carries it, then 12 random bytes.
func newCookie() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return serverPrefix() + hex.EncodeToString(b[:])
}

// watchExit waits for the shell to exit without reaping it, so that its pid
// and process group id stay reserved until Kill is done.
func (g *Group) watchExit() {
	defer close(g.exited)
	waitExited(g.pid)
}

// readBufs holds the output pipes' read buffers. A reader takes one only
// once its pipe is readable and returns it after handing the bytes on, so
// idle commands hold none.
var readBufs = sync.Pool{New: func() any { b := make([]byte, readBufBytes); return &b }}

func (g *Group) copyOut(r *os.File, w io.Writer) {
	defer g.readers.Done()
	rc, err := r.SyscallConn()
	if err != nil {
		_, _ = io.Copy(w, r)
		return
	}
	for {
		var buf *[]byte
		var n int
		var rerr error
		err := rc.Read(func(fd uintptr) bool {
			b := readBufs.Get().(*[]byte)
			for {
				n, rerr = unix.Read(int(fd), *b)
				if !errors.Is(rerr, unix.EINTR) {
					break
				}
			}
			if errors.Is(rerr, unix.EAGAIN) {
				readBufs.Put(b)
				return false // wait until readable
			}
			buf = b
			return true
		})
		if buf != nil && n > 0 {
			_, _ = w.Write((*buf)[:n])
		}
		if buf != nil {
			readBufs.Put(buf)
		}
		if err != nil || rerr != nil || n <= 0 {
			return
		}
	}
}

// Kill kills every process the command started: the shell, its process group,
// and descendants that left the group. Kill may be called concurrently with
// Wait and more than once. After Kill returns, no process started by the
// command is alive (short of one stuck in uninterruptible sleep past
// killBackstop, which no signal can end).
func (g *Group) Kill() {
	g.killOnce.Do(func() {
		close(g.killed)
		g.countKilled()
		if g.sys.cg != nil {
			pids, err := g.sys.cg.kill()
			if err == nil {
				reapPids(pids, g.pid)
				return
			}
			// cgroup.kill failed: fall back to the sweep.
			becomeSubreaper()
		}
		_ = unix.Kill(-g.pid, unix.SIGKILL)
		sweep(g.pid, CookieEnv+"="+g.cookie, g.sys.start)
	})
}

// statusOf is how the shell ended.
func statusOf(ps *os.ProcessState) Status {
	ws, _ := ps.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return Status{ExitCode: -1, Signal: unix.SignalName(ws.Signal())}
	}
	return Status{ExitCode: ws.ExitStatus()}
}

// groupSys is what Kill needs on Unix: the shell's start time (older
// processes cannot hold the cookie) and its call cgroup, if any.
type groupSys struct {
	start uint64
	cg    *callCgroup
}

// release removes the command's cgroup once the shell is reaped.
func (g *Group) release() {
	if g.sys.cg != nil {
		g.sys.cg.remove()
	}
}

// withoutNames returns env without the variables named in names.
func withoutNames(env, names []string) []string {
	if len(names) == 0 {
		return env
	}
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, name) {
			out = append(out, kv)
		}
	}
	return out
}
