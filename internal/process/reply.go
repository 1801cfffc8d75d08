package process

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/toolrpc/toolrpc/internal/cut"
	"github.com/toolrpc/toolrpc/limits"
)

// State is a process's state in a reply.
type State string

// The three states.
const (
	Running       State = "running"
	AwaitingInput State = "awaitingInput"
	Exited        State = "exited"
)

// Prompt is the line a process awaiting input shows.
type Prompt struct {
	Text string
	// Echo is false when the terminal does not echo what is typed (a
	// password prompt).
	Echo bool
	// Confidence is "low" where input is guessed from idleness rather than
	// read from the kernel; "" otherwise.
	Confidence string
}

// Info is a process's state, without output.
type Info struct {
	Pid               int
	Label             string
	Mode              Mode
	State             State
	Reason            Event
	ExitCode          *int
	Signal            string
	Prompt            *Prompt
	Ports             []int
	Log               string
	DescendantsKilled int
	Duration          time.Duration
}

// Output is a bounded excerpt of the rendered log (SPEC §13.3).
type Output struct {
	Text         string
	From, To     int64
	Truncated    bool
	OmittedBytes int64
}

// Info returns the process's state, as a reply or list shows it; reason is
// the reason of the reply ("" in a list: the last reply's).
func (p *Process) Info(reason Event) Info {
	in := Info{Pid: p.g.Pid(), Label: p.spec.Label, Mode: p.spec.Mode, Log: p.log.Path(), State: Running}
	p.mu.Lock()
	if reason == "" {
		reason = Event(p.lastReason)
	} else {
		p.lastReason = string(reason)
	}
	pending := p.rend.Pending()
	screen, hidden := p.rend.Screen(), p.rend.CursorHidden()
	screenPrompt, onPrompt := p.rend.ScreenPrompt()
	p.mu.Unlock()
	in.Reason = reason
	if p.Exited() {
		in.State = Exited
		in.Duration = p.ended.Sub(p.started)
		in.DescendantsKilled = p.killedN
		if p.status.Signal != "" {
			in.Signal = p.status.Signal
		} else {
			code := p.status.ExitCode
			in.ExitCode = &code
		}
		if in.Reason == "" || in.Reason == EvInput || in.Reason == EvIdle || in.Reason == EvTimeout {
			in.Reason = EvExit
		}
		return in
	}
	in.Duration = time.Since(p.started)
	pids := p.g.Pids()
	in.Ports = listeningPorts(pids)
	if pr := p.probeInput(pids); pr.blocked || reason == EvInput {
		in.State = AwaitingInput
		switch {
		case hidden:
			// No row is where typing goes (top's table): no prompt.
		case !screen:
			in.Prompt = &Prompt{Text: promptText(pending, p.lastLine()), Echo: pr.echo, Confidence: promptConfidence}
		case onPrompt:
			// On the alternate screen the prompt is the cursor's row, or
			// none: never the last row of data.
			in.Prompt = &Prompt{Text: screenPrompt, Echo: pr.echo, Confidence: promptConfidence}
		}
	}
	if in.Reason == "" {
		in.Reason = EvTimeout
	}
	return in
}

// lastLine returns the last non-empty line of the log's tail.
func (p *Process) lastLine() string {
	end := p.log.Produced()
	b, _, _ := p.log.ReadRange(end-4*limits.KB, end)
	for _, l := range slicesReverse(strings.Split(string(b), "\n")) {
		if strings.TrimSpace(l) != "" {
			return l
		}
	}
	return ""
}

func slicesReverse(s []string) []string {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
	return s
}

func promptText(pending, last string) string {
	if strings.TrimSpace(pending) != "" {
		return pending
	}
	return last
}

// Read returns the rendered output from since (a cursor; nil: where the
// last Read ended) to now, bounded by the shell budget with its tail kept
// and tailLines (> 0) lines at most. It flushes the current line first,
// so a prompt without "\n" is part of it. Reads never consume.
func (p *Process) Read(since *int64, tailLines int) (Output, error) {
	p.mu.Lock()
	p.rend.Flush()
	p.flushOut()
	from := p.lastEnd
	p.mu.Unlock()
	to := p.log.Produced()
	if since != nil {
		from = *since
	}
	if from < 0 || from > to {
		return Output{}, fmt.Errorf("since %d is outside the log's 0..%d", from, to)
	}
	out := Output{From: from, To: to}
	budget := cut.ShellBudget()
	if tailLines > 0 {
		budget.Lines = min(budget.Lines, tailLines)
	}
	held := p.log.Held()
	var lost string
	if from < held {
		lost = fmt.Sprintf("[omitted: %d bytes before cursor %d are no longer held; the log keeps the last %d MB.]\n",
			held-from, held, logKeep/limits.MiB)
	}
	start := max(from, held)
	window := int64(budget.Bytes + 4*limits.MaxLineChars)
	winFrom := max(start, to-window)
	b, _, err := p.log.ReadRange(winFrom, to)
	if err != nil {
		return Output{}, err
	}
	dropped := winFrom > start
	if winFrom > start {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	lines := p.log.Lines(start, to)
	c := cut.Tail(cut.Stream{Text: b, Lines: lines, Dropped: dropped, Spill: p.log.Path()}, budget)
	out.Text = lost + c.Text
	out.OmittedBytes = (to - from) - int64(c.KeptBytes)
	out.Truncated = out.OmittedBytes > 0
	p.mu.Lock()
	p.lastEnd = max(p.lastEnd, to)
	p.mu.Unlock()
	return out, nil
}
