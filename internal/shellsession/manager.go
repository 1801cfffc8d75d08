package shellsession

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/toolrpc/toolrpc/internal/shell"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/procgroup"
	"github.com/toolrpc/toolrpc/wire"
)

// ErrUnsupported refuses a session where the server cannot keep one
// (Windows, where a bash is found).
var ErrUnsupported = errors.New("shell sessions need a Unix bash; run the command without session")

// PolicyChanged is why a shell started under another sandbox policy was
// ended (SPEC §6.7).
const PolicyChanged = "a sandbox/update changed the sandbox policy the shell ran under"

// idleAfter is limits.ShellSessionIdle; tests shorten it.
var idleAfter = limits.ShellSessionIdle

// Request is one command for a named session.
type Request struct {
	// Name is the session's name (wire.SessionNamePattern).
	Name string
	// Restart ends the session's shell before the command.
	Restart bool
	// Spec is the command as shell.Run takes it. Dir is where a new shell
	// starts when the session has none and CdGiven or it is the session's
	// first shell; Env is assigned for this command alone.
	Spec shell.Spec
	// CdGiven says the call named a working directory: an existing shell
	// changes to Spec.Dir before the command (and stays there).
	CdGiven bool
	// MakeWrap, if set, makes Spec.Wrap when a shell is started (nil:
	// Spec.Wrap as it is): what it costs is paid once a shell, not once a
	// command.
	MakeWrap func() (Wrap, error)
	// Policy identifies the sandbox policy the call runs under (a
	// comparable value, equal for equal policies): a shell started under
	// another one is ended first, and the notice says so.
	Policy any
}

// TooManyError refuses a new session past limits.ShellSessionsMax.
type TooManyError struct {
	// Live names the sessions that have a shell.
	Live []string
}

func (e *TooManyError) Error() string {
	return fmt.Sprintf("%d shell sessions are live (%s), the most one server keeps; end one with restart or use one of them",
		limits.ShellSessionsMax, strings.Join(e.Live, ", "))
}

// Manager holds one server's shell sessions. Its methods may be called
// concurrently; commands of one session run one after another.
type Manager struct {
	logf func(string, ...any)

	mu       sync.Mutex
	sessions map[string]*session
	closed   bool
}

// NewManager returns an empty Manager logging to logf (nil: discarded).
func NewManager(logf func(string, ...any)) *Manager {
	return &Manager{logf: logf, sessions: map[string]*session{}}
}

// session is one named session: its shell, if any, and what the next
// command must be told.
type session struct {
	name string
	turn chan struct{} // holds one token while a command runs

	mu       sync.Mutex // guards the fields below
	sh       *shellProc
	firstDir string
	lost     string      // why the last shell ended, for the next command's notice
	idle     *time.Timer // ends the shell after limits.ShellSessionIdle
}

// get returns the named session, making it; it refuses a new one past the
// limit of live shells.
func (m *Manager) get(name string) (*session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fmt.Errorf("shell session %s: the server is shutting down", name)
	}
	if s := m.sessions[name]; s != nil {
		return s, nil
	}
	var live []string
	for n, s := range m.sessions {
		if s.live() {
			live = append(live, n)
		} else if len(m.sessions) >= 4*limits.ShellSessionsMax {
			delete(m.sessions, n) // a shell-less session keeps only its notice
		}
	}
	if len(live) >= limits.ShellSessionsMax {
		sort.Strings(live)
		return nil, &TooManyError{Live: live}
	}
	s := &session{name: name, turn: make(chan struct{}, 1)}
	m.sessions[name] = s
	return s, nil
}

func (s *session) live() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sh != nil
}

// Run runs req's command in its session, waiting for the session's previous
// command to end first. It returns what shell.Run would (the same errors
// with the partial result on a timeout or cancel), with Session filled in.
func (m *Manager) Run(ctx context.Context, req Request) (*wire.BashResult, error) {
	for _, kv := range req.Spec.Env {
		if name, _, _ := strings.Cut(kv, "="); !validName(name) {
			return nil, &NameError{Name: name}
		}
	}
	s, err := m.get(req.Name)
	if err != nil {
		return nil, err
	}
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, &shell.CancelledError{Cause: ctx.Err()}
	}
	defer func() { <-s.turn }()
	s.mu.Lock()
	if s.idle != nil {
		s.idle.Stop()
	}
	info := &wire.BashSession{Name: req.Name}
	if err := s.prepare(ctx, req, info, m.logf); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	sh := s.sh
	info.BackgroundBytes = sh.bg.take()
	s.mu.Unlock()

	c := &command{text: req.Spec.Command, env: req.Spec.Env, stdin: req.Spec.Stdin, timeout: req.Spec.Timeout,
		capture: shell.NewCapture(req.Spec)}
	if req.CdGiven && !info.Started {
		c.cd = req.Spec.Dir
	}
	e, err := sh.run(ctx, c)

	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		c.capture.Result(procgroup.Status{})
		if s.sh == sh {
			s.endLocked(err.Error())
		}
		return nil, err
	}
	st := procgroup.Status{ExitCode: e.rc}
	switch {
	case e.exited:
		st = e.st
	case e.aborted: // killed, as a fresh bash -c's tree would be
		st = procgroup.Status{ExitCode: -1, Signal: "SIGKILL"}
	}
	res := c.capture.Result(st)
	if !e.exited {
		sh.prepareNext() // the next command's fifos, once this result is built
	}
	res.Session = info
	switch {
	case e.exited:
		sh.end()
		if s.sh == sh {
			s.sh = nil
		}
		s.lost = e.why
		info.Ended = true
		info.Notice = e.why + ": " + wire.SessionLost
	case s.sh == sh:
		s.idle = time.AfterFunc(idleAfter, func() { m.idleEnd(s) })
	}
	if e.aborted {
		if ctx.Err() != nil {
			return res, &shell.CancelledError{Cause: ctx.Err()}
		}
		return res, &shell.TimeoutError{After: req.Spec.Timeout}
	}
	return res, nil
}

// prepare makes sure the session has a shell for req: it ends one that
// restart, a changed sandbox policy or an earlier end asks to replace, and
// starts one, saying why in info.
func (s *session) prepare(ctx context.Context, req Request, info *wire.BashSession, logf func(string, ...any)) error {
	if s.sh != nil && req.Restart {
		s.endLocked("")
		s.lost = "restart ended the previous shell"
	}
	if s.sh != nil && s.sh.gone() {
		s.endLocked("the shell ended after the previous command's reply")
	}
	if s.sh != nil && s.sh.policy != req.Policy {
		s.endLocked(PolicyChanged)
	}
	if s.sh != nil {
		return nil
	}
	dir := req.Spec.Dir
	if s.firstDir != "" && !req.CdGiven {
		dir = s.firstDir
	}
	wrap := req.Spec.Wrap
	if req.MakeWrap != nil {
		var err error
		if wrap, err = req.MakeWrap(); err != nil {
			return err
		}
	}
	sh, err := startShell(ctx, dir, req.Spec.Unset, wrap, req.Spec.Fork, req.Policy, logf)
	if err != nil {
		return err
	}
	if s.firstDir == "" {
		s.firstDir = dir
	}
	s.sh = sh
	info.Started = true
	if s.lost != "" {
		info.Notice = "state was lost (" + s.lost + "): " + wire.SessionFresh
		s.lost = ""
	}
	return nil
}

// endLocked ends the session's shell, if any, recording why for the next
// command ("" keeps what is recorded). s.mu is held.
func (s *session) endLocked(why string) {
	if s.idle != nil {
		s.idle.Stop()
	}
	if s.sh == nil {
		return
	}
	s.sh.end()
	s.sh = nil
	if why != "" {
		s.lost = why
	}
}

// idleEnd ends s's shell after limits.ShellSessionIdle without a command,
// unless a command has just begun.
func (m *Manager) idleEnd(s *session) {
	select {
	case s.turn <- struct{}{}:
	default:
		return
	}
	defer func() { <-s.turn }()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endLocked(fmt.Sprintf("the shell was idle for %s and was ended", idleAfter))
}

// EndAll ends every idle session's shell, saying why on each one's next
// command (a sandbox/update that changed the policy). It does not wait for
// a command under way: that session's next command, whose Policy differs,
// ends its shell with the same words.
func (m *Manager) EndAll(why string) {
	m.mu.Lock()
	all := make([]*session, 0, len(m.sessions))
	for _, s := range m.sessions {
		all = append(all, s)
	}
	m.mu.Unlock()
	for _, s := range all {
		select {
		case s.turn <- struct{}{}:
		default:
			continue // busy: its next command finds the policy changed
		}
		s.mu.Lock()
		s.endLocked(why)
		s.mu.Unlock()
		<-s.turn
	}
}

// Close ends every session and refuses new commands: no shell or job of a
// session is alive when it returns. A command under way is abandoned: its
// shell is killed under it.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	all := m.sessions
	m.sessions = map[string]*session{}
	m.mu.Unlock()
	for _, s := range all {
		s.mu.Lock()
		s.endLocked("the server is shutting down")
		s.mu.Unlock()
	}
}

// command is one command as a session's shell runs it.
type command struct {
	text    string
	cd      string // a directory to change to first ("": none)
	env     []string
	stdin   *string
	timeout time.Duration
	capture *shell.Capture
}

// Wrap and Fork are the sandbox's shapes of procgroup.Spec.Wrap and Fork.
type (
	Wrap = func(cmd *exec.Cmd) error
	Fork = func(start func() error) (done func(), err error)
)

// NameError refuses an env variable a session's command cannot be given:
// a session assigns env in the shell, so each name must be a shell name.
type NameError struct {
	// Name is the refused variable name.
	Name string
}

func (e *NameError) Error() string {
	return "env " + e.Name + ": a session's command gets env as shell assignments; names must be letters, digits and _, not starting with a digit"
}
