package process

import (
	"context"

	"regexp"
	"slices"
	"time"

	"github.com/toolrpc/toolrpc/limits"
)

// Event names a reason a wait ends (SPEC §13).
type Event string

// The events and the other reasons a reply gives.
const (
	EvExit    Event = "exit"
	EvInput   Event = "input"
	EvIdle    Event = "idle"
	EvPattern Event = "pattern"
	EvPort    Event = "port"
	EvTimeout Event = "timeout"
	EvSignal  Event = "signal"
)

// Wait says when a call answers: on the first event of Until, or after
// Timeout.
type Wait struct {
	Until   []Event
	Pattern *regexp.Regexp
	Idle    time.Duration
	Timeout time.Duration
	// From is the offset from which pattern matches count: lines rendered
	// before it are not matched.
	From int64
}

// DefaultWait is the wait a call gives when it names none.
func DefaultWait() Wait {
	return Wait{Until: []Event{EvExit, EvInput, EvIdle},
		Idle:    limits.ProcessDefaultIdleMs * time.Millisecond,
		Timeout: limits.ProcessDefaultTimeoutMs * time.Millisecond}
}

// Outcome is how a wait ended.
type Outcome struct {
	Reason  Event
	Matched string // the line that matched the pattern
	Ports   []int  // the listening ports, when Reason is EvPort
}

// patternScanBytes bounds how much already rendered text a pattern wait
// scans before it watches new lines.
const patternScanBytes = 1 * limits.MiB

// inputConfirm is the pause after a probe first finds a blocked read before
// a second probe confirms it with no output in between, so that a prompt
// still in the pipe is read before the event is reported. On a pty the
// output must also have been quiet for ptyQuiet: the kernel hands what the
// program wrote to the master's side from a work queue, and until then no
// ioctl shows it (a prompt could be reported before its text).
// Before the program's first output, ptyFirstQuiet applies instead: a
// program that blocks before printing anything is rare, and a loaded
// machine delays that work queue most at a program's start.
// answerGrace is how long after a Write with no output since a blocked
// read is not yet taken for a new wait.
var answerGrace = 100 * time.Millisecond

var (
	inputConfirm  = 3 * time.Millisecond
	ptyQuiet      = 15 * time.Millisecond
	ptyFirstQuiet = 100 * time.Millisecond
)

// Await waits for the first event of w. ctx ends the wait early with ctx's
// error; the process keeps running either way.
func (p *Process) Await(ctx context.Context, w Wait) (Outcome, error) {
	matched := make(chan string, 1)
	if w.has(EvPattern) && w.Pattern != nil {
		stop := p.watchLines(w, matched)
		defer stop()
	}
	deadline := time.NewTimer(w.Timeout)
	defer deadline.Stop()
	poll := limits.ProcessInputPoll
	var pollTimer *time.Timer
	for {
		p.mu.Lock()
		changed, lastOut := p.changed, p.lastOut
		pending := p.rend.Pending()
		p.mu.Unlock()
		if o, ok := p.happened(w, matched, pending, lastOut); ok {
			return o, nil
		}
		if w.Timeout == 0 {
			return Outcome{Reason: EvTimeout}, nil
		}
		// Sleep until output, exit, a match, the idle point, or the next probe.
		var next time.Duration
		next, poll = w.nextWake(time.Since(lastOut), poll)
		var tick <-chan time.Time
		if next >= 0 {
			if pollTimer == nil {
				pollTimer = time.NewTimer(next)
				defer pollTimer.Stop()
			} else {
				pollTimer.Reset(next)
			}
			tick = pollTimer.C
		}
		select {
		case <-changed:
			poll = limits.ProcessInputPoll
		case <-p.done:
		case m := <-matched:
			return Outcome{Reason: EvPattern, Matched: m}, nil
		case <-tick:
		case <-deadline.C:
			return Outcome{Reason: EvTimeout}, nil
		case <-ctx.Done():
			return Outcome{}, ctx.Err()
		}
	}
}

// has reports whether w waits for e.
func (w Wait) has(e Event) bool { return slices.Contains(w.Until, e) }

// happened returns the first of w's events that has occurred: pending is
// the rendered line not yet ended, lastOut the time of the last output.
func (p *Process) happened(w Wait, matched <-chan string, pending string, lastOut time.Time) (Outcome, bool) {
	if w.has(EvExit) && p.Exited() {
		return Outcome{Reason: EvExit}, true
	}
	select {
	case m := <-matched:
		return Outcome{Reason: EvPattern, Matched: m}, true
	default:
	}
	if w.has(EvPattern) && w.Pattern != nil && pending != "" && w.Pattern.MatchString(pending) {
		return Outcome{Reason: EvPattern, Matched: pending}, true
	}
	if w.has(EvPort) && !p.Exited() {
		if ports := listeningPorts(p.g.Pids()); len(ports) > 0 {
			return Outcome{Reason: EvPort, Ports: ports}, true
		}
	}
	if w.has(EvInput) && !p.Exited() && p.confirmInput(lastOut) {
		return Outcome{Reason: EvInput}, true
	}
	if w.has(EvIdle) && time.Since(lastOut) >= w.Idle {
		return Outcome{Reason: EvIdle}, true
	}
	return Outcome{}, false
}

// nextWake is how long a wait may sleep before it must look again (-1:
// until something happens), given how long the output has been quiet, and
// the input poll interval it has backed off to: the poll starts at
// ProcessInputPoll while output is recent and grows by half up to
// ProcessInputPollMax while it stays quiet.
func (w Wait) nextWake(quiet, poll time.Duration) (next, newPoll time.Duration) {
	next = -1
	if w.has(EvIdle) {
		next = w.Idle - quiet
	}
	if w.has(EvInput) || w.has(EvPort) {
		if quiet < limits.ProcessInputFastFor {
			poll = limits.ProcessInputPoll
		} else {
			poll = min(poll*3/2, limits.ProcessInputPollMax)
		}
		if next < 0 || poll < next {
			next = poll
		}
	}
	return next, poll
}

// confirmInput reports a blocked read seen by two probes that find the
// same waits, with no output in between and nothing written left unread (SPEC §13.1: after a write, input
// means the program took what was written and drew what it draws for it).
func (p *Process) confirmInput(lastOut time.Time) bool {
	p.mu.Lock()
	wrote := p.lastWrite
	p.mu.Unlock()
	if wrote.After(lastOut) && time.Since(wrote) < answerGrace {
		// Input was sent and nothing came back yet: the reader may not have
		// woken to take it, and still shows in read.
		return false
	}
	pr := p.probeInput(p.g.Pids())
	if !pr.blocked {
		return false
	}
	if time.Since(latest(lastOut, wrote)) < pr.settle {
		return false // a short wait that ends by itself: it may draw yet
	}
	pause := inputConfirm
	if p.master != nil {
		quiet := ptyQuiet
		p.mu.Lock()
		if p.log.Produced() == 0 && p.rend.Pending() == "" && !p.rend.Screen() {
			quiet = ptyFirstQuiet
		}
		p.mu.Unlock()
		pause = max(pause, quiet-time.Since(lastOut))
	}
	time.Sleep(pause)
	p.mu.Lock()
	quiet := p.lastOut.Equal(lastOut)
	p.mu.Unlock()
	if !quiet || p.unread() != 0 || p.tg.queued() != 0 {
		return false
	}
	// The same waits as before: no thread woke in between (a short wait
	// that ended and drew is not confirmed by the wait that followed it).
	again := p.probeInput(p.g.Pids())
	return again.blocked && again.waits == pr.waits
}

// latest returns the later of a and b.
func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// unread returns the output bytes written by the tree but not read yet.
func (p *Process) unread() int {
	if p.master != nil {
		return masterUnread(p.tg.master)
	}
	return p.g.Unread()
}

// watchLines sends the first line rendered from w.From on that matches
// w.Pattern (already rendered ones first) to matched, until stop is called.
func (p *Process) watchLines(w Wait, matched chan<- string) (stop func()) {
	found := func(line string) {
		if w.Pattern.MatchString(line) {
			select {
			case matched <- line:
			default:
			}
		}
	}
	p.mu.Lock()
	to := p.log.Produced() - int64(len(p.partial))
	from := max(w.From, to-patternScanBytes)
	if old, start, err := p.log.ReadRange(from, to); err == nil {
		lines := splitLines(old)
		if start > w.From && len(lines) > 0 {
			lines = lines[1:] // may be the end of a line
		}
		for _, l := range lines {
			found(l)
		}
	}
	p.lineSeq++
	id := p.lineSeq
	p.lines[id] = found
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		delete(p.lines, id)
		p.mu.Unlock()
	}
}

// splitLines splits complete lines (each ending in "\n") of b.
func splitLines(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := indexByte(b, '\n')
		if i < 0 {
			break
		}
		out = append(out, string(b[:i]))
		b = b[i+1:]
	}
	return out
}
