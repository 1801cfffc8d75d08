package procgroup

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Group is one running command and every process it starts.
type Group struct {
	cmd     *exec.Cmd
	pid     int
	cookie  string
	sys     groupSys      // per OS: what Kill needs
	exited  chan struct{} // closed when the shell has exited (not yet reaped)
	readers sync.WaitGroup
	outs    []*os.File // read ends of stdout and stderr
	stdinW  *os.File
	stdinWG sync.WaitGroup
	keepIn  bool          // the caller writes stdinW (KeepStdin)
	grace   time.Duration // drainGrace, or the Spec's
	killedN int           // processes besides the shell that Kill found alive
	forked  func()        // Spec.Fork's done, called once the shell is reaped

	killOnce sync.Once
	killed   chan struct{} // closed when Kill starts
	waitOnce sync.Once
	status   Status
	waitErr  error
}

// newGroup returns the Group of a command about to start.
func newGroup(cookie string, spec *Spec) *Group {
	g := &Group{cookie: cookie, exited: make(chan struct{}), killed: make(chan struct{}), grace: drainGrace}
	if spec.DrainGrace > 0 {
		g.grace = spec.DrainGrace
	}
	return g
}

// serve starts what runs beside the command: the exit watch, the readers of
// both pipes and the writer of the Spec's stdin text.
func (g *Group) serve(spec *Spec) {
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
		setPipeSize(w)
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

// Pid returns the shell's process id (also the process group id).
func (g *Group) Pid() int { return g.pid }

// Cookie returns the value of CookieEnv in the command's environment.
func (g *Group) Cookie() string { return g.cookie }

// Exited is closed once the shell has exited; its other processes may live on
// until Wait or Kill.
func (g *Group) Exited() <-chan struct{} { return g.exited }

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
	g.release()
	if g.forked != nil {
		g.forked()
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return Status{ExitCode: -1}, fmt.Errorf("wait %q: %w", g.cmd.Args[2], err)
	}
	return statusOf(g.cmd.ProcessState), nil
}

// Stdin returns the write end of the command's stdin pipe when the Spec set
// KeepStdin, else nil. Closing it gives the command end of file; Wait closes
// it too.
func (g *Group) Stdin() *os.File {
	if !g.keepIn {
		return nil
	}
	return g.stdinW
}

// Killed returns how many processes besides the shell Kill found alive and
// killed: the descendants that outlived the shell, once Wait returned.
func (g *Group) Killed() int {
	select {
	case <-g.killed:
	default:
		return 0
	}
	g.killOnce.Do(func() {}) // waits for a Kill in progress
	return g.killedN
}
