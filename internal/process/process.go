package process

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"

	"github.com/toolrpc/toolrpc/internal/sandbox"
	"github.com/toolrpc/toolrpc/internal/shell"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/procgroup"
)

// Mode is how a process is connected: "pipe" or "pty".
type Mode string

// The two modes.
const (
	Pipe Mode = "pipe"
	PTY  Mode = "pty"
)

// Spec describes one process to start.
type Spec struct {
	// Command is the shell command line (bash -c).
	Command string
	// Dir is the working directory.
	Dir string
	// Env is added to the server's environment ("K=V").
	Env []string
	// Mode is Pipe (stdout and stderr merged, stdin a pipe) or PTY.
	Mode Mode
	// Cols and Rows size the terminal (and the renderer's screen).
	Cols, Rows int
	// Label is the caller's name for the process.
	Label string
	// Log is the path of the rendered log.
	Log string
	// Sandbox is the policy the command runs under (SPEC §14; nil: none).
	// Start refuses a policy that is unavailable (sandbox.Resolved.Usable).
	Sandbox *sandbox.Resolved
}

// Process is one command that outlives the call that started it, with its
// process tree, its terminal or pipes, its rendered log and its events.
// Its methods are safe for concurrent use.
type Process struct {
	spec    Spec
	g       *procgroup.Group
	log     *Log
	started time.Time
	tg      target

	master *os.File // pty master; nil in pipe mode
	stdin  *os.File // pipe mode: the stdin pipe's write end

	mu         sync.Mutex
	rend       *Renderer
	lastOut    time.Time            // when output last arrived
	lastWrite  time.Time            // when Write last sent input
	changed    chan struct{}        // closed and replaced whenever output arrives
	lines      map[int]func(string) // pattern watchers
	lineSeq    int
	partial    []byte // emitted text after the last "\n"
	out        []byte // emitted text not yet in the log
	stdinShut  bool
	lastEnd    int64 // where the last reply ended
	lastReason string

	done     chan struct{} // closed once the tree is dead and output drained
	status   procgroup.Status
	waitErr  error
	ended    time.Time
	killedN  int
	writeMu  sync.Mutex
	readDone chan struct{} // pty: the master's reader ended
}

// Start starts the process. ctx cancels only the start itself: once Start
// returns, the process runs until it exits or Kill.
func Start(ctx context.Context, spec Spec) (*Process, error) {
	if spec.Mode == "" {
		spec.Mode = Pipe
	}
	if err := supported(spec.Mode); err != nil {
		return nil, fmt.Errorf("start %q: %w", spec.Command, err)
	}
	if spec.Cols == 0 {
		spec.Cols = limits.ProcessDefaultCols
	}
	if spec.Rows == 0 {
		spec.Rows = limits.ProcessDefaultRows
	}
	log, err := CreateLog(spec.Log)
	if err != nil {
		return nil, err
	}
	p := &Process{spec: spec, log: log, started: time.Now(), changed: make(chan struct{}),
		done: make(chan struct{}), readDone: make(chan struct{}), tg: target{master: -1, stdin: -1},
		lines: map[int]func(string){}}
	p.lastOut = p.started
	p.rend = NewRenderer(spec.Cols, spec.Rows, spec.Mode == PTY, p.emit)
	pg := procgroup.Spec{Command: spec.Command, Dir: spec.Dir, Env: slices.Clip(spec.Env), DrainGrace: limits.ProcessDrainGrace, GitPrompts: true}
	if pg.Wrap, err = spec.Sandbox.Wrap(); err != nil {
		log.Close()
		return nil, err
	}
	if spec.Mode != PTY {
		// A pty's command is started by the wrapper: the confined thread's
		// /dev/pts is a devpts of its own, where the server's pty is not.
		pg.Fork = spec.Sandbox.Fork()
	}
	pg.Unset = spec.Sandbox.HiddenEnv()
	var tty *os.File
	if spec.Mode == PTY {
		master, slave, err := pty.Open()
		if err != nil {
			log.Close()
			return nil, fmt.Errorf("start %q: open pty: %w", spec.Command, err)
		}
		_ = pty.Setsize(master, &pty.Winsize{Cols: uint16(spec.Cols), Rows: uint16(spec.Rows)})
		p.tg.ttyRdev, p.tg.ttyPath = rdevOf(slave), slave.Name()
		p.master, tty = master, slave
		p.tg.master = fdOf(master)
		pg.TTY = slave
		pg.Env = append(pg.Env, "TERM=xterm-256color",
			fmt.Sprintf("COLUMNS=%d", spec.Cols), fmt.Sprintf("LINES=%d", spec.Rows))
		p.rend.Reply = func(b []byte) { go p.writeRaw(b) }
	} else {
		pg.KeepStdin = true
		out := lockedWriter{p}
		pg.Stdout, pg.Stderr = out, out
	}
	g, err := shell.Start(ctx, pg)
	if tty != nil {
		_ = tty.Close() // the command holds it; the master sees EIO once all its copies close
	}
	if err != nil {
		if p.master != nil {
			_ = p.master.Close()
		}
		log.Close()
		return nil, err
	}
	p.g = g
	if spec.Mode == Pipe {
		p.stdin = g.Stdin()
		p.tg.pipeIno, p.tg.stdin = inodeOf(p.stdin), fdOf(p.stdin)
		close(p.readDone)
	} else {
		go p.readMaster()
	}
	go p.wait()
	return p, nil
}

// lockedWriter feeds the pipes' output to the renderer.
type lockedWriter struct{ p *Process }

func (w lockedWriter) Write(b []byte) (int, error) {
	w.p.feed(b)
	return len(b), nil
}

// feed renders raw output.
func (p *Process) feed(b []byte) {
	p.mu.Lock()
	_, _ = p.rend.Write(b)
	p.flushOut()
	p.lastOut = time.Now()
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
}

// flushOut appends the rendered text emitted since the last call to the
// log. It runs with p.mu held, after every Write or Flush of the renderer.
func (p *Process) flushOut() {
	if len(p.out) > 0 {
		p.log.Append(p.out)
		p.out = p.out[:0]
	}
}

// emit buffers rendered text for the log and hands complete lines to the
// pattern watchers. It runs with p.mu held.
func (p *Process) emit(b []byte) {
	p.out = append(p.out, b...)
	if len(p.lines) == 0 {
		p.partial = p.partial[:0]
		return
	}
	for len(b) > 0 {
		i := indexByte(b, '\n')
		if i < 0 {
			p.partial = append(p.partial, b...)
			return
		}
		line := string(append(p.partial, b[:i]...))
		p.partial = p.partial[:0]
		for _, f := range p.lines {
			f(line)
		}
		b = b[i+1:]
	}
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// readMaster reads the pty until every copy of its slave is closed.
func (p *Process) readMaster() {
	defer close(p.readDone)
	buf := make([]byte, 64*limits.KB)
	for {
		n, err := p.master.Read(buf)
		if n > 0 {
			p.feed(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// masterDrain bounds how long the exit waits for the pty's last output after
// the tree is dead. Tests do not change it.
const masterDrain = 500 * time.Millisecond

// wait waits for the shell, lets procgroup kill the rest of the tree, then
// drains the terminal and marks the process done.
func (p *Process) wait() {
	st, err := p.g.Wait()
	if p.master != nil {
		select {
		case <-p.readDone:
		case <-time.After(masterDrain):
		}
	}
	p.mu.Lock()
	p.status, p.waitErr = st, err
	p.killedN = p.g.Killed()
	p.ended = time.Now()
	p.rend.Flush()
	p.rend.Close()
	p.flushOut()
	close(p.done)
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
	if p.master != nil {
		_ = p.master.Close()
	}
}

// ID-independent accessors.

// Pid returns the shell's pid.
func (p *Process) Pid() int { return p.g.Pid() }

// Spec returns the process's Spec.
func (p *Process) Spec() Spec { return p.spec }

// Done is closed once the process exited and its tree is dead.
func (p *Process) Done() <-chan struct{} { return p.done }

// Dir returns the process's working directory.
func (p *Process) Dir() string { return p.spec.Dir }

// Sandbox returns the policy the process runs under (nil: none).
func (p *Process) Sandbox() *sandbox.Resolved { return p.spec.Sandbox }

// Exited reports whether the process is done.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Log returns the rendered log.
func (p *Process) Log() *Log { return p.log }

// Kill kills the whole tree and waits until it is dead.
func (p *Process) Kill() {
	p.g.Kill()
	<-p.done
}

// Close kills the process and closes its log.
func (p *Process) Close() {
	p.Kill()
	_ = p.log.Close()
}

// ErrExited is returned by Write and Signal on a process that has exited.
var ErrExited = errors.New("the process has exited")

// ErrStdinClosed is returned by Write after eof closed the process's stdin.
var ErrStdinClosed = errors.New("the process's stdin is closed")

// writeTimeout bounds one Write's wait for the process to take its input.
var writeTimeout = 5 * time.Second

// Write sends data to the process's stdin (pipe) or terminal (pty); eof
// then closes the stdin pipe, or, on a pty, sends the terminal's EOF
// character (^D).
func (p *Process) Write(data []byte, eof bool) error {
	if p.Exited() {
		return ErrExited
	}
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if p.master == nil && p.stdinShut {
		return ErrStdinClosed
	}
	f := p.stdin
	if p.master != nil {
		f = p.master
	}
	if len(data) > 0 {
		_ = f.SetWriteDeadline(time.Now().Add(writeTimeout))
		n, err := f.Write(data)
		_ = f.SetWriteDeadline(time.Time{})
		if err != nil {
			if p.Exited() {
				return ErrExited
			}
			return fmt.Errorf("write: %d of %d bytes taken: %w", n, len(data), err)
		}
	}
	if eof {
		if p.master != nil {
			_, err := p.master.Write([]byte{4})
			return err
		}
		p.stdinShut = true
		return p.stdin.Close()
	}
	p.mu.Lock()
	p.lastWrite = time.Now()
	p.mu.Unlock()
	return nil
}

// writeRaw writes a terminal's answer to a query.
func (p *Process) writeRaw(b []byte) {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if !p.Exited() {
		_, _ = p.master.Write(b)
	}
}

// Signal sends sig to the process group (and, on a pty, to the terminal's
// foreground group). For TERM and HUP it then waits up to grace for the
// process to exit and kills the tree when it did not.
func (p *Process) Signal(ctx context.Context, sig syscall.Signal, grace time.Duration) error {
	if p.Exited() {
		return ErrExited
	}
	if sig == syscall.SIGKILL {
		p.Kill()
		return nil
	}
	if err := p.g.Signal(sig); err != nil && !p.Exited() {
		return fmt.Errorf("signal: %w", err)
	}
	if p.master != nil {
		signalForeground(p.tg.master, p.g.Pid(), sig)
	}
	if sig != syscall.SIGTERM && sig != syscall.SIGHUP {
		return nil
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		p.Kill()
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// Resize changes the terminal's size (pty mode).
func (p *Process) Resize(cols, rows int) {
	if p.master == nil {
		return
	}
	_ = pty.Setsize(p.master, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	p.mu.Lock()
	p.rend.Resize(cols, rows)
	p.mu.Unlock()
}

var _ io.Writer = lockedWriter{}

// compile-time use of regexp for Wait.
var _ = regexp.MustCompile

// fdOf returns f's descriptor without switching it to blocking mode, as
// Fd would (deadlines and Close must keep working on it).
func fdOf(f *os.File) int {
	rc, err := f.SyscallConn()
	if err != nil {
		return -1
	}
	fd := -1
	_ = rc.Control(func(u uintptr) { fd = int(u) })
	return fd
}
