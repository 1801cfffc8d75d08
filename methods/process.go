package methods

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/process"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/sandbox"
	"github.com/toolrpc/toolrpc/shell"
	"github.com/toolrpc/toolrpc/wire"
)

// processWhen tells a model when a process fits better than tools/bash.
var processWhen = "Use a process instead of tools/bash for anything that does not finish on its own or may ask for input: " +
	"dev servers, watchers, REPLs, installers that ask [Y/n], logins that ask for a password (tools/bash gives such a command /dev/null as stdin and kills it at its timeout)."

var waitDoc = fmt.Sprintf("wait: {until?: [%s] (default [exit,input,idle]), pattern?: RE2 matched against each rendered line, "+
	"idleMs?: %d..%d (default %d), timeoutMs?: 0..%d (default %d; 0 answers at once)}; the call answers on the first event, or with reason timeout "+
	"(the process keeps running). input is reported when a process of the tree blocks reading the terminal or the stdin pipe; prompt.echo false means a password prompt.",
	strings.Join(process.WaitEvents, "|"), limits.ProcessMinIdleMs, limits.ProcessMaxIdleMs, limits.ProcessDefaultIdleMs, limits.ProcessMaxTimeoutMs, limits.ProcessDefaultTimeoutMs)

var replyDoc = fmt.Sprintf("Every reply gives state (running|awaitingInput|exited), reason, prompt, ports, and the rendered output since the last reply "+
	"(no escape codes; \\r and redraws applied; a full-screen program is shown as a [screen COLSxROWS] snapshot), at most %d lines / %dKB with its tail kept "+
	"and a marker naming the log file; cursor {from,to} are offsets in the process's log, which keeps the last %d MB.",
	limits.ShellBudgetLines, limits.ShellBudgetBytes/limits.KB, limits.ProcessLogKeepBytes/limits.MiB)

func processStartMethod() Method {
	return Method{
		Name: "tools/process/start",
		Tool: true,
		Describe: always(fmt.Sprintf("Starts command with bash -c in cwd (inside the workspace) as a process that outlives this call, and answers on the first wait event. "+
			"%s mode pipe (default) merges stdout and stderr and gives the command a stdin pipe; mode pty runs it on a terminal of cols×rows "+
			"(cols %d..%d, default %d; rows %d..%d, default %d; TERM=xterm-256color), which prompts like sudo, ssh and git need. "+
			"At most %d live processes per session; %d exited ones are kept. Every process is killed when the session ends. %s %s",
			processWhen, limits.ProcessMinCols, limits.ProcessMaxCols, limits.ProcessDefaultCols,
			limits.ProcessMinRows, limits.ProcessMaxRows, limits.ProcessDefaultRows,
			limits.ProcessMaxLive, limits.ProcessMaxExited, waitDoc, replyDoc)),
		InputSchema: processSchema[wire.ProcessStartParams](func(p wire.Props) {
			p["command"].MinLength = wire.Ptr(1)
			wire.Default(p["mode"], string(process.Pipe)).Enum = []any{nil, string(process.Pipe), string(process.PTY)} // null: the default, as the decoder takes it
			wire.Default(integer(p["cols"], limits.ProcessMinCols, limits.ProcessMaxCols), limits.ProcessDefaultCols)
			wire.Default(integer(p["rows"], limits.ProcessMinRows, limits.ProcessMaxRows), limits.ProcessDefaultRows)
		}),
		OutputSchema: wire.OutputSchema[wire.ProcessReply](),
		Call:         processStartCall,
	}
}

func processReadMethod() Method {
	return Method{
		Name: "tools/process/read",
		Tool: true,
		Describe: always("Reads a process's output (since: a cursor, default where its last reply ended; tailLines: only the last N lines) and waits as wait says. " +
			"Reads never consume: any cursor can be read again. " + waitDoc + " " + replyDoc),
		InputSchema: processSchema[wire.ProcessReadParams](func(p wire.Props) {
			integer(p["since"], 0, 0)
			integer(p["tailLines"], 1, 0)
		}),
		OutputSchema: wire.OutputSchema[wire.ProcessReply](),
		Call:         processReadCall,
	}
}

func processWriteMethod() Method {
	return Method{
		Name: "tools/process/write",
		Tool: true,
		Describe: always(fmt.Sprintf("Writes data (at most %dKB) and then keys (%s) "+
			"to a process's stdin or terminal; eof closes its stdin (pty: sends ^D). Then waits as wait says. Answer a prompt with data \"yes\\n\". %s %s",
			limits.ProcessWriteMaxBytes/limits.KB, process.KeyNames, waitDoc, replyDoc)),
		InputSchema:  processSchema[wire.ProcessWriteParams](nil),
		OutputSchema: wire.OutputSchema[wire.ProcessReply](),
		Call:         processWriteCall,
	}
}

func processSignalMethod() Method {
	return Method{
		Name: "tools/process/signal",
		Tool: true,
		Describe: always(fmt.Sprintf("Sends signal (%s) to a process's group. After TERM or HUP the whole tree is killed if it has not exited "+
			"within graceMs (0..%d, default %d); KILL kills the whole tree at once. Answers with reason signal once delivered (once the tree is dead for KILL "+
			"or an escalation), or, given wait, on its first event. %s",
			process.SignalNames, limits.ProcessMaxGraceMs, limits.ProcessDefaultGraceMs, replyDoc)),
		InputSchema: processSchema[wire.ProcessSignalParams](func(p wire.Props) {
			p["signal"].Enum = wire.Enum(strings.Fields(process.SignalNames))
			wire.Default(integer(p["graceMs"], 0, limits.ProcessMaxGraceMs), limits.ProcessDefaultGraceMs)
		}),
		OutputSchema: wire.OutputSchema[wire.ProcessReply](),
		Call:         processSignalCall,
	}
}

func processListMethod() Method {
	return Method{
		Name: "tools/process/list",
		Tool: true,
		Describe: always(fmt.Sprintf("Lists the session's processes: every live one (at most %d) and the exited ones kept (the last %d), with state, reason, prompt, ports and log, without output.",
			limits.ProcessMaxLive, limits.ProcessMaxExited)),
		InputSchema:  wire.InputSchema[struct{}](nil),
		OutputSchema: wire.OutputSchema[wire.ProcessList](),
		Call:         processListCall,
	}
}

// processSchema is the input schema generated from a process tool's params
// P: the wait member's events and ranges, then adjust's additions (adjust
// may be nil).
func processSchema[P any](adjust func(p wire.Props)) json.RawMessage {
	return wire.InputSchema[P](func(p wire.Props) {
		if w := p["wait"]; w != nil {
			w.Properties["until"].Items.Enum = wire.Enum(process.WaitEvents)
			wire.Default(integer(w.Properties["idleMs"], limits.ProcessMinIdleMs, limits.ProcessMaxIdleMs), limits.ProcessDefaultIdleMs)
			wire.Default(integer(w.Properties["timeoutMs"], 0, limits.ProcessMaxTimeoutMs), limits.ProcessDefaultTimeoutMs)
		}
		if adjust != nil {
			adjust(p)
		}
	})
}

// integer makes a number member an integer in min..max (max 0: none), as
// the adapter checks it.
func integer(p *jsonschema.Schema, min, max int) *jsonschema.Schema {
	for i, t := range p.Types {
		if t == "number" {
			p.Types[i] = "integer"
		}
	}
	if p.Type == "number" {
		p.Type = "integer"
	}
	return wire.Range(p, min, max)
}

// always is a description in the words of each face: on MCP the tools are
// bash and process_*, not tools/bash and tools/process/*.
func always(s string) func(Face) string {
	mcp := strings.NewReplacer("tools/process/", "process_", "tools/", "").Replace(s)
	return func(f Face) string {
		if f == MCP {
			return mcp
		}
		return s
	}
}

// decodeWait validates wait; nil gives the default.
func decodeWait(method string, w *wire.ProcessWait) (process.Wait, error) {
	out := process.DefaultWait()
	if w == nil {
		return out, nil
	}
	if w.Until != nil {
		out.Until = nil
		for _, u := range w.Until {
			e, ok := process.WaitEvent(u)
			if !ok {
				return out, rpc.Errorf(rpc.InvalidArgument, "%s: wait.until %q is not one of exit, input, idle, pattern, port", method, u)
			}
			out.Until = append(out.Until, e)
		}
	}
	hasPattern := false
	for _, e := range out.Until {
		hasPattern = hasPattern || e == process.EvPattern
	}
	if w.Pattern != nil {
		re, err := regexp.Compile(*w.Pattern)
		if err != nil {
			return out, rpc.Errorf(rpc.InvalidArgument, "%s: wait.pattern is not RE2: %v", method, err)
		}
		if !hasPattern {
			return out, rpc.Errorf(rpc.InvalidArgument, "%s: wait.pattern needs \"pattern\" in wait.until", method)
		}
		out.Pattern = re
	} else if hasPattern {
		return out, rpc.Errorf(rpc.InvalidArgument, "%s: wait.until names pattern but wait.pattern is missing", method)
	}
	var err error
	if w.IdleMs != nil {
		if out.Idle, err = millis(method, "wait.idleMs", *w.IdleMs, limits.ProcessMinIdleMs, limits.ProcessMaxIdleMs); err != nil {
			return out, err
		}
	}
	if w.TimeoutMs != nil {
		if out.Timeout, err = millis(method, "wait.timeoutMs", *w.TimeoutMs, 0, limits.ProcessMaxTimeoutMs); err != nil {
			return out, err
		}
	}
	return out, nil
}

// millis checks an integer number of milliseconds in lo..hi.
func millis(method, name string, v float64, lo, hi int) (time.Duration, error) {
	if v != float64(int64(v)) || v < float64(lo) || v > float64(hi) {
		return 0, rpc.Errorf(rpc.InvalidArgument, "%s: %s %v is not an integer in %d..%d", method, name, v, lo, hi)
	}
	return time.Duration(v) * time.Millisecond, nil
}

// intIn checks an optional integer in lo..hi, def when absent.
func intIn(method, name string, v *float64, lo, hi, def int) (int, error) {
	if v == nil {
		return def, nil
	}
	if *v != float64(int64(*v)) || *v < float64(lo) || *v > float64(hi) {
		return 0, rpc.Errorf(rpc.InvalidArgument, "%s: %s %v is not an integer in %d..%d", method, name, *v, lo, hi)
	}
	return int(*v), nil
}

func processStartCall(ctx context.Context, s *Session, call *rpc.Call) (any, error) {
	const m = "process/start"
	var p wire.ProcessStartParams
	if err := call.Decode(&p); err != nil {
		return nil, err
	}
	if p.Command == nil || *p.Command == "" || strings.ContainsRune(*p.Command, 0) {
		return nil, rpc.Errorf(rpc.InvalidArgument, "%s: command is required, without NUL bytes", m)
	}
	spec := process.Spec{Command: *p.Command, Mode: process.Pipe}
	if p.Mode != nil {
		switch process.Mode(*p.Mode) {
		case process.Pipe, process.PTY:
			spec.Mode = process.Mode(*p.Mode)
		default:
			return nil, rpc.Errorf(rpc.InvalidArgument, "%s: mode %q is not pipe or pty", m, *p.Mode)
		}
	}
	var err error
	if spec.Cols, err = intIn(m, "cols", p.Cols, limits.ProcessMinCols, limits.ProcessMaxCols, limits.ProcessDefaultCols); err != nil {
		return nil, err
	}
	if spec.Rows, err = intIn(m, "rows", p.Rows, limits.ProcessMinRows, limits.ProcessMaxRows, limits.ProcessDefaultRows); err != nil {
		return nil, err
	}
	if p.Label != nil {
		spec.Label = *p.Label
	}
	w, err := decodeWait(m, p.Wait)
	if err != nil {
		return nil, err
	}
	if spec.Env, err = bashEnv(p.Env); err != nil {
		return nil, err
	}
	if spec.Dir, err = bashDir(s, p.Cwd); err != nil {
		return nil, err
	}
	spec.Sandbox = s.Sandbox()
	id, proc, err := s.Processes.Start(ctx, spec)
	var lim *process.LimitError
	var unavailable *sandbox.UnavailableError
	switch {
	case errors.As(err, &unavailable):
		return nil, rpc.Errorf(rpc.SandboxUnavailable, "%s: %v", m, err)
	case errors.As(err, &lim):
		return nil, rpc.Errorf(rpc.InvalidArgument, "%s: %v", m, err)
	case err != nil && ctx.Err() != nil:
		return nil, rpc.AsError(fmt.Errorf("%s: cancelled before the command started: %w", m, ctx.Err()))
	case errors.Is(err, shell.ErrDirGone):
		return nil, rpc.Errorf(rpc.NotFound, "%s: %v", m, err)
	case errors.Is(err, errors.ErrUnsupported): // Windows: no process engine
		return nil, rpc.Errorf(rpc.InvalidArgument, "%s: %v", m, err)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", m, err)
	}
	o, err := proc.Await(ctx, w)
	if err != nil {
		s.Processes.Remove(id) // a cancelled start kills its process
		return nil, rpc.AsError(fmt.Errorf("%s: cancelled; the process was killed: %w", m, err))
	}
	return processAnswer(id, proc, o, nil, 0)
}

// lookupProcess decodes id and finds its process.
func lookupProcess(s *Session, method string, id *string) (*process.Process, error) {
	if id == nil || *id == "" {
		return nil, rpc.Errorf(rpc.InvalidArgument, "%s: id is required", method)
	}
	p, ok := s.Processes.Get(*id)
	if !ok {
		return nil, rpc.Errorf(rpc.NotFound, "%s: no process %q in this session (tools/process/list lists them)", method, *id)
	}
	return p, nil
}

func processReadCall(ctx context.Context, s *Session, call *rpc.Call) (any, error) {
	const m = "process/read"
	var p wire.ProcessReadParams
	if err := call.Decode(&p); err != nil {
		return nil, err
	}
	proc, err := lookupProcess(s, m, p.ID)
	if err != nil {
		return nil, err
	}
	var since *int64
	if p.Since != nil {
		if *p.Since != float64(int64(*p.Since)) || *p.Since < 0 {
			return nil, rpc.Errorf(rpc.InvalidArgument, "%s: since %v is not a cursor (an integer ≥ 0)", m, *p.Since)
		}
		c := int64(*p.Since)
		if produced := proc.Log().Produced(); c > produced {
			return nil, rpc.Errorf(rpc.InvalidArgument, "%s: since %d is past the end of the log (%d)", m, c, produced)
		}
		since = &c
	}
	tail, err := intIn(m, "tailLines", p.TailLines, 1, 1<<31-1, 0)
	if err != nil {
		return nil, err
	}
	w, err := decodeWait(m, p.Wait)
	if err != nil {
		return nil, err
	}
	if since != nil {
		w.From = *since
	}
	o, err := proc.Await(ctx, w)
	if err != nil {
		return nil, rpc.AsError(fmt.Errorf("%s: cancelled; the process keeps running: %w", m, err))
	}
	return processAnswer(*p.ID, proc, o, since, tail)
}

func processWriteCall(ctx context.Context, s *Session, call *rpc.Call) (any, error) {
	const m = "process/write"
	var p wire.ProcessWriteParams
	if err := call.Decode(&p); err != nil {
		return nil, err
	}
	var data strings.Builder
	if p.Data != nil {
		data.WriteString(*p.Data)
	}
	for _, k := range p.Keys {
		b, ok := process.Key(k)
		if !ok {
			return nil, rpc.Errorf(rpc.InvalidArgument, "%s: unknown key %q (%s)", m, k, process.KeyNames)
		}
		data.WriteString(b)
	}
	if data.Len() > limits.ProcessWriteMaxBytes {
		return nil, rpc.Errorf(rpc.InvalidArgument, "%s: %d bytes of data and keys exceed the %dKB limit", m, data.Len(), limits.ProcessWriteMaxBytes/limits.KB)
	}
	proc, err := lookupProcess(s, m, p.ID)
	if err != nil {
		return nil, err
	}
	w, err := decodeWait(m, p.Wait)
	if err != nil {
		return nil, err
	}
	w.From = proc.Log().Produced()
	switch err := proc.Write([]byte(data.String()), p.EOF); {
	case errors.Is(err, process.ErrExited):
		return nil, rpc.Errorf(rpc.InvalidArgument, "%s: process %s has exited", m, *p.ID)
	case errors.Is(err, process.ErrStdinClosed):
		return nil, rpc.Errorf(rpc.InvalidArgument, "%s: the stdin of process %s is closed (eof was sent)", m, *p.ID)
	case err != nil:
		return nil, rpc.Errorf(rpc.InvalidArgument, "%s: %v", m, err)
	}
	o, err := proc.Await(ctx, w)
	if err != nil {
		return nil, rpc.AsError(fmt.Errorf("%s: cancelled; the process keeps running: %w", m, err))
	}
	return processAnswer(*p.ID, proc, o, nil, 0)
}

func processSignalCall(ctx context.Context, s *Session, call *rpc.Call) (any, error) {
	const m = "process/signal"
	var p wire.ProcessSignalParams
	if err := call.Decode(&p); err != nil {
		return nil, err
	}
	if p.Signal == nil {
		return nil, rpc.Errorf(rpc.InvalidArgument, "%s: signal is required", m)
	}
	sig, ok := process.SignalNamed(*p.Signal)
	if !ok {
		return nil, rpc.Errorf(rpc.InvalidArgument, "%s: signal %q is not one of %s", m, *p.Signal, process.SignalNames)
	}
	grace, err := intIn(m, "graceMs", p.GraceMs, 0, limits.ProcessMaxGraceMs, limits.ProcessDefaultGraceMs)
	if err != nil {
		return nil, err
	}
	proc, err := lookupProcess(s, m, p.ID)
	if err != nil {
		return nil, err
	}
	var w process.Wait
	if p.Wait != nil {
		if w, err = decodeWait(m, p.Wait); err != nil {
			return nil, err
		}
	}
	w.From = proc.Log().Produced()
	switch err := proc.Signal(ctx, sig, time.Duration(grace)*time.Millisecond); {
	case errors.Is(err, process.ErrExited):
		return nil, rpc.Errorf(rpc.InvalidArgument, "%s: process %s has exited", m, *p.ID)
	case err != nil && ctx.Err() != nil:
		return nil, rpc.AsError(fmt.Errorf("%s: cancelled while waiting out graceMs: %w", m, err))
	case err != nil:
		return nil, fmt.Errorf("%s: %w", m, err)
	}
	o := process.Outcome{Reason: process.EvSignal}
	if p.Wait != nil {
		if o, err = proc.Await(ctx, w); err != nil {
			return nil, rpc.AsError(fmt.Errorf("%s: cancelled; the signal was sent: %w", m, err))
		}
	}
	return processAnswer(*p.ID, proc, o, nil, 0)
}

func processListCall(ctx context.Context, s *Session, call *rpc.Call) (any, error) {
	if string(call.Params) != "null" {
		var p struct{}
		if err := call.Decode(&p); err != nil {
			return nil, err
		}
	}
	res := wire.ProcessList{Processes: []wire.ProcessInfo{}}
	for _, l := range s.Processes.List() {
		res.Processes = append(res.Processes, infoWire(l.ID, l.P.Info("")))
	}
	return res, nil
}

// processAnswer shapes a reply: the process's state after outcome o, and
// its output from since.
func processAnswer(id string, p *process.Process, o process.Outcome, since *int64, tail int) (any, error) {
	out, err := p.Read(since, tail)
	if err != nil {
		return nil, rpc.Errorf(rpc.IOError, "process %s: %v", id, err)
	}
	r := &wire.ProcessReply{ProcessInfo: infoWire(id, p.Info(o.Reason)), Matched: o.Matched, Output: out.Text,
		Cursor: wire.ProcessCursor{From: out.From, To: out.To}, Truncated: out.Truncated, OmittedBytes: out.OmittedBytes}
	if len(o.Ports) > 0 && len(r.Ports) == 0 {
		r.Ports = o.Ports
	}
	if p.Exited() {
		r.Sandbox = p.Sandbox().Report(out.Text, p.Dir(), nil)
	}
	return r, nil
}

func infoWire(id string, in process.Info) wire.ProcessInfo {
	w := wire.ProcessInfo{ID: id, Pid: in.Pid, Label: in.Label, Mode: string(in.Mode), State: string(in.State), Reason: string(in.Reason),
		ExitCode: in.ExitCode, Signal: in.Signal, Ports: in.Ports, Log: in.Log, DescendantsKilled: in.DescendantsKilled,
		DurationMs: in.Duration.Milliseconds()}
	if in.Prompt != nil {
		w.Prompt = &wire.ProcessPrompt{Text: in.Prompt.Text, Echo: in.Prompt.Echo}
		w.PromptConfidence = in.Prompt.Confidence
	}
	return w
}
