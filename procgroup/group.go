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
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// CookieEnv is the environment variable that carries a command's cookie; every
// process the command starts inherits it unless it clears its environment.
const CookieEnv = "TOOLRPC_CALL_COOKIE"

// drainGrace is how long Wait lets the pipes reach end of file after the shell
// exits before it kills what is left of the command. Tests shorten it.
var drainGrace = 200 * time.Millisecond

// drainBackstop bounds the wait for the pipes to reach end of file after Kill;
// past it the read ends are closed (a process outside the server's reach may
// hold a write end). Tests shorten it.
var drainBackstop = 2 * time.Second

// readBufBytes is the read size of the output pipes.
const readBufBytes = 128 << 10

// pipeBytes is the pipe capacity asked for, so a fast writer needs fewer
// wake-ups; the kernel may grant less.
const pipeBytes = 1 << 20

// Spec describes one command.
type Spec struct {
	// Command is the shell command line, run with bash -c (sh -c without bash).
	Command string
	// Dir is the working directory.
	Dir string
	// Env is added to the server's environment ("K=V"); later entries win.
	Env []string
	// Stdin is the command's standard input; nil means /dev/null.
	Stdin *string
	// Stdout and Stderr receive the command's output as it is read. Their
	// Write must not block for long: it runs on the pipe's reading goroutine.
	Stdout, Stderr io.Writer
	// TTY, when set, is the slave end of a pseudo-terminal: the command's
	// stdin, stdout and stderr, and its controlling terminal (the shell is a
	// session leader). Stdin, Stdout, Stderr and KeepStdin are then ignored:
	// the caller reads and writes the terminal's master end.
	TTY *os.File
	// KeepStdin gives the command a stdin pipe whose write end the caller
	// holds (Group.Stdin) instead of Stdin's text.
	KeepStdin bool
	// DrainGrace, when positive, replaces drainGrace for this command.
	DrainGrace time.Duration

	noCgroup bool // tests set it to cover the sweep on machines with cgroup v2
}

// Status is how the shell ended.
type Status struct {
	// ExitCode is the shell's exit code, or -1 when a signal ended it.
	ExitCode int
	// Signal names the signal that ended the shell ("SIGKILL"), or "".
	Signal string
}

// Group is one running command and every process it starts.
type Group struct {
	cmd     *exec.Cmd
	pid     int
	cookie  string
	start   uint64
	cg      *callCgroup
	exited  chan struct{} // closed when the shell has exited (not yet reaped)
	readers sync.WaitGroup
	outs    []*os.File // read ends of stdout and stderr
	stdinW  *os.File
	stdinWG sync.WaitGroup
	keepIn  bool          // the caller writes stdinW (KeepStdin)
	grace   time.Duration // drainGrace, or the Spec's
	killedN int           // processes besides the shell that Kill found alive

	killOnce sync.Once
	killed   chan struct{} // closed when Kill starts
	waitOnce sync.Once
	status   Status
	waitErr  error
}

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
	g := &Group{cookie: cookie, exited: make(chan struct{}), killed: make(chan struct{}), grace: drainGrace}
	if spec.DrainGrace > 0 {
		g.grace = spec.DrainGrace
	}
	cmd := exec.Command(shell, "-c", spec.Command)
	cmd.Dir = spec.Dir
	cmd.Env = append(os.Environ(), spec.Env...)
	cmd.Env = append(cmd.Env, CookieEnv+"="+cookie)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}

	var closeAfterStart []*os.File
	if spec.TTY != nil {
		cmd.Stdin, cmd.Stdout, cmd.Stderr = spec.TTY, spec.TTY, spec.TTY
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0, Pdeathsig: syscall.SIGKILL}
	} else if closeAfterStart, err = g.pipes(cmd, &spec); err != nil {
		return nil, err
	}
	cmd, err = g.spawn(ctx, cmd, spec.noCgroup)
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
		g.start = st.start
	}
	g.serve(spec)
	return g, nil
}

// spawn starts cmd in a cgroup of its own where the machine allows it (not
// when noCgroup), else as a child of this subreaper, and returns the
// command that runs. A ctx already done fails it before the spawn.
func (g *Group) spawn(ctx context.Context, cmd *exec.Cmd, noCgroup bool) (*exec.Cmd, error) {
	if !noCgroup && useCgroup() {
		if cg, err := newCallCgroup(); err == nil {
			g.cg = cg
			cmd.SysProcAttr.UseCgroupFD = true
			cmd.SysProcAttr.CgroupFD = cg.fd
		}
	} else {
		becomeSubreaper()
	}
	err := ctx.Err()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil && g.cg != nil && ctx.Err() == nil {
		// The kernel may refuse CLONE_INTO_CGROUP; run this command without it.
		g.cg.remove()
		g.cg = nil
		cmd.SysProcAttr.UseCgroupFD = false
		becomeSubreaper()
		// An exec.Cmd starts at most once: retry with a fresh one.
		cmd = &exec.Cmd{Path: cmd.Path, Args: cmd.Args, Env: cmd.Env, Dir: cmd.Dir,
			Stdin: cmd.Stdin, Stdout: cmd.Stdout, Stderr: cmd.Stderr, SysProcAttr: cmd.SysProcAttr}
		err = cmd.Start()
	}
	if err != nil && g.cg != nil {
		g.cg.remove()
	}
	return cmd, err
}

// serve starts the goroutines of a started command: the exit watch, the
// readers of stdout and stderr, and the writer of stdin.
func (g *Group) serve(spec Spec) {
	go g.watchExit()
	for i, f := range g.outs {
		g.readers.Add(1)
		go g.copyOut(f, []io.Writer{spec.Stdout, spec.Stderr}[i])
	}
	if g.stdinW != nil && !g.keepIn {
		g.stdinWG.Add(1)
		go func() {
			defer g.stdinWG.Done()
			_, _ = io.WriteString(g.stdinW, *spec.Stdin)
			_ = g.stdinW.Close()
		}()
	}
}

// newCookie returns a fresh cookie: serverPrefix, so the guardian and later
// sweeps know whose command carries it, then 12 random bytes.
// pipes sets the command's stdin (the Spec's text through a pipe, or
// /dev/null) and its stdout and stderr pipes, whose read ends the Group keeps.
// It returns the ends the command alone must hold, to close once it started.
func (g *Group) pipes(cmd *exec.Cmd, spec *Spec) ([]*os.File, error) {
	var closeAfterStart []*os.File
	if spec.KeepStdin {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("stdin pipe: %w", err)
		}
		cmd.Stdin = r
		g.stdinW = w
		g.keepIn = true
		closeAfterStart = append(closeAfterStart, r)
	} else if spec.Stdin == nil {
		null, err := os.Open(os.DevNull)
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", os.DevNull, err)
		}
		cmd.Stdin = null
		closeAfterStart = append(closeAfterStart, null)
	} else {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("stdin pipe: %w", err)
		}
		cmd.Stdin = r
		g.stdinW = w
		closeAfterStart = append(closeAfterStart, r)
	}
	for _, dst := range []*io.Writer{&spec.Stdout, &spec.Stderr} {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(closeAfterStart)
			closeAll(g.outs)
			if g.stdinW != nil {
				_ = g.stdinW.Close()
			}
			return nil, fmt.Errorf("output pipe: %w", err)
		}
		_, _ = unix.FcntlInt(w.Fd(), unix.F_SETPIPE_SZ, pipeBytes)
		g.outs = append(g.outs, r)
		closeAfterStart = append(closeAfterStart, w)
		if *dst == nil {
			*dst = io.Discard
		}
	}
	cmd.Stdout = closeAfterStart[len(closeAfterStart)-2]
	cmd.Stderr = closeAfterStart[len(closeAfterStart)-1]
	return closeAfterStart, nil
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

func newCookie() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return serverPrefix() + hex.EncodeToString(b[:])
}

// Pid returns the shell's process id (also the process group id).
func (g *Group) Pid() int { return g.pid }

// Cookie returns the value of CookieEnv in the command's environment.
func (g *Group) Cookie() string { return g.cookie }

// Exited is closed once the shell has exited; its other processes may live on
// until Wait or Kill.
func (g *Group) Exited() <-chan struct{} { return g.exited }

// watchExit waits for the shell to exit without reaping it, so that its pid
// and process group id stay reserved until Kill is done.
func (g *Group) watchExit() {
	defer close(g.exited)
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, g.pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return
		}
	}
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
		for _, pid := range g.Pids() {
			if st, ok := readStat(pid); ok && pid != g.pid && !st.dead() {
				g.killedN++
			}
		}
		if g.cg != nil {
			pids, err := g.cg.kill()
			if err == nil {
				reapPids(pids, g.pid)
				return
			}
			// cgroup.kill failed: fall back to the sweep.
			becomeSubreaper()
		}
		_ = unix.Kill(-g.pid, unix.SIGKILL)
		sweep(g.pid, CookieEnv+"="+g.cookie, g.start)
	})
}

// Wait waits for the shell to exit (or for Kill), gives the pipes drainGrace
// to reach end of file, kills what is left of the command, drains both pipes
// into the Spec's writers and reaps the shell. It returns the shell's status.
// Wait may be called more than once; later calls return the same result.
func (g *Group) Wait() (Status, error) {
	g.waitOnce.Do(func() { g.status, g.waitErr = g.wait() })
	return g.status, g.waitErr
}

func (g *Group) wait() (Status, error) {
	select {
	case <-g.exited:
	case <-g.killed:
	}
	drained := make(chan struct{})
	go func() { g.readers.Wait(); close(drained) }()
	grace := time.NewTimer(g.grace)
	select {
	case <-drained:
	case <-grace.C:
	case <-g.killed:
	}
	grace.Stop()
	g.Kill()
	backstop := time.NewTimer(drainBackstop)
	select {
	case <-drained:
	case <-backstop.C:
		for _, f := range g.outs {
			_ = f.Close()
		}
		<-drained
	}
	backstop.Stop()
	for _, f := range g.outs {
		_ = f.Close()
	}
	if g.stdinW != nil {
		_ = g.stdinW.Close()
		g.stdinWG.Wait()
	}
	err := g.cmd.Wait()
	if g.cg != nil {
		g.cg.remove()
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return Status{ExitCode: -1}, fmt.Errorf("wait %q: %w", g.cmd.Args[2], err)
	}
	ws, _ := g.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return Status{ExitCode: -1, Signal: unix.SignalName(ws.Signal())}, nil
	}
	return Status{ExitCode: ws.ExitStatus()}, nil
}
