package process

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/toolrpc/toolrpc/internal/sandbox"
	"github.com/toolrpc/toolrpc/internal/shell"
	"github.com/toolrpc/toolrpc/wire"
)

// The entry points of the five process tools (SPEC §13): each is one call
// of the adapter, with its errors typed. A refusal is an *Error carrying its
// SPEC §10 kind; a wait or start that ctx ended wraps ctx's error
// (CANCELLED); anything else is a failure of the machine (IO_ERROR).

// Error is a process tool's refusal of a call, of a SPEC §10 kind
// (wire.InvalidArgument, wire.NotFound, wire.IOError).
type Error struct {
	// Kind is the SPEC §10 data.code.
	Kind string
	// Err says what was refused.
	Err error
}

// Error implements error.
func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// refuse returns an *Error of kind.
func refuse(kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Err: fmt.Errorf(format, args...)}
}

// Start is tools/process/start: it starts spec and answers on the first
// event of w. A ctx ended before the command started, or during the wait,
// fails the call and leaves no process behind.
func (t *Table) Start(ctx context.Context, spec Spec, w Wait) (*wire.ProcessReply, error) {
	id, p, err := t.start(ctx, spec)
	var lim *LimitError
	var unavailable *sandbox.UnavailableError
	var setup *sandbox.SetupError
	switch {
	case errors.As(err, &lim):
		return nil, &Error{Kind: wire.InvalidArgument, Err: err}
	case errors.As(err, &unavailable), errors.As(err, &setup):
		return nil, &Error{Kind: wire.SandboxUnavailable, Err: err}
	case err != nil && ctx.Err() != nil:
		return nil, fmt.Errorf("cancelled before the command started: %w", ctx.Err())
	case errors.Is(err, shell.ErrDirGone):
		return nil, &Error{Kind: wire.NotFound, Err: err}
	case errors.Is(err, errors.ErrUnsupported): // Windows: no process engine
		return nil, &Error{Kind: wire.InvalidArgument, Err: err}
	case err != nil:
		return nil, err
	}
	o, err := p.Await(ctx, w)
	if err != nil {
		t.Remove(id) // a cancelled start kills its process
		return nil, fmt.Errorf("cancelled; the process was killed: %w", err)
	}
	return reply(id, p, o, nil, 0)
}

// Read is tools/process/read: the output of process id from since (nil:
// where its last reply ended), its last tailLines lines at most (0: no
// such bound), after the first event of w.
func (t *Table) Read(ctx context.Context, id string, since *int64, tailLines int, w Wait) (*wire.ProcessReply, error) {
	p, err := t.lookup(id)
	if err != nil {
		return nil, err
	}
	if since != nil {
		if produced := p.Log().Produced(); *since > produced {
			return nil, refuse(wire.InvalidArgument, "since %d is past the end of the log (%d)", *since, produced)
		}
		w.From = *since
	}
	o, err := p.Await(ctx, w)
	if err != nil {
		return nil, fmt.Errorf("cancelled; the process keeps running: %w", err)
	}
	return reply(id, p, o, since, tailLines)
}

// Write is tools/process/write: it writes data to process id's stdin or
// terminal (eof: then closes its stdin, or sends ^D on a terminal) and
// answers on the first event of w after it.
func (t *Table) Write(ctx context.Context, id string, data []byte, eof bool, w Wait) (*wire.ProcessReply, error) {
	p, err := t.lookup(id)
	if err != nil {
		return nil, err
	}
	w.From = p.Log().Produced()
	switch err := p.Write(data, eof); {
	case errors.Is(err, ErrExited):
		return nil, refuse(wire.InvalidArgument, "process %s has exited", id)
	case errors.Is(err, ErrStdinClosed):
		return nil, refuse(wire.InvalidArgument, "the stdin of process %s is closed (eof was sent)", id)
	case err != nil:
		return nil, &Error{Kind: wire.InvalidArgument, Err: err}
	}
	o, err := p.Await(ctx, w)
	if err != nil {
		return nil, fmt.Errorf("cancelled; the process keeps running: %w", err)
	}
	return reply(id, p, o, nil, 0)
}

// Signal is tools/process/signal: it sends sig to process id (Process.Signal
// with grace) and answers with reason signal, or, given w, on its first
// event.
func (t *Table) Signal(ctx context.Context, id string, sig syscall.Signal, grace time.Duration, w *Wait) (*wire.ProcessReply, error) {
	p, err := t.lookup(id)
	if err != nil {
		return nil, err
	}
	var wait Wait
	if w != nil {
		wait = *w
	}
	wait.From = p.Log().Produced()
	switch err := p.Signal(ctx, sig, grace); {
	case errors.Is(err, ErrExited):
		return nil, refuse(wire.InvalidArgument, "process %s has exited", id)
	case err != nil && ctx.Err() != nil:
		return nil, fmt.Errorf("cancelled while waiting out graceMs: %w", err)
	case errors.Is(err, errors.ErrUnsupported): // Windows: KILL only
		return nil, &Error{Kind: wire.InvalidArgument, Err: err}
	case err != nil:
		return nil, err
	}
	o := Outcome{Reason: EvSignal}
	if w != nil {
		if o, err = p.Await(ctx, wait); err != nil {
			return nil, fmt.Errorf("cancelled; the signal was sent: %w", err)
		}
	}
	return reply(id, p, o, nil, 0)
}

// List is tools/process/list: every process kept, in start order, without
// output.
func (t *Table) List() wire.ProcessList {
	res := wire.ProcessList{Processes: []wire.ProcessInfo{}}
	for _, e := range t.kept() {
		res.Processes = append(res.Processes, wireInfo(e.id, e.p.Info("")))
	}
	return res
}

// lookup finds process id, or refuses with NOT_FOUND.
func (t *Table) lookup(id string) (*Process, error) {
	p, ok := t.Get(id)
	if !ok {
		return nil, refuse(wire.NotFound, "no process %q in this session (tools/process/list lists them)", id)
	}
	return p, nil
}

// reply shapes a reply: p's state after outcome o, and its output from
// since.
func reply(id string, p *Process, o Outcome, since *int64, tail int) (*wire.ProcessReply, error) {
	out, err := p.Read(since, tail)
	if err != nil {
		return nil, refuse(wire.IOError, "process %s: %v", id, err)
	}
	r := &wire.ProcessReply{ProcessInfo: wireInfo(id, p.Info(o.Reason)), Matched: o.Matched, Output: out.Text,
		Cursor: wire.ProcessCursor{From: out.From, To: out.To}, Truncated: out.Truncated, OmittedBytes: out.OmittedBytes}
	if len(o.Ports) > 0 && len(r.Ports) == 0 {
		r.Ports = o.Ports
	}
	if p.Exited() {
		r.Sandbox = p.Sandbox().Report(out.Text, p.Dir(), nil)
	}
	return r, nil
}

// wireInfo is in as SPEC §13's ProcessInfo of process id.
func wireInfo(id string, in Info) wire.ProcessInfo {
	w := wire.ProcessInfo{ID: id, Pid: in.Pid, Label: in.Label, Mode: string(in.Mode), State: string(in.State), Reason: string(in.Reason),
		ExitCode: in.ExitCode, Signal: in.Signal, Ports: in.Ports, Log: in.Log, DescendantsKilled: in.DescendantsKilled,
		DurationMs: in.Duration.Milliseconds()}
	if in.Prompt != nil {
		w.Prompt = &wire.ProcessPrompt{Text: in.Prompt.Text, Echo: in.Prompt.Echo}
		w.PromptConfidence = in.Prompt.Confidence
	}
	return w
}
