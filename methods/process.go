package methods

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/toolrpc/toolrpc/internal/process"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/rpc"
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
			wire.Default(wire.Range(p["cols"], limits.ProcessMinCols, limits.ProcessMaxCols), limits.ProcessDefaultCols)
			wire.Default(wire.Range(p["rows"], limits.ProcessMinRows, limits.ProcessMaxRows), limits.ProcessDefaultRows)
		}),
		OutputSchema: wire.OutputSchema[wire.ProcessReply](nil),
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
			wire.Range(p["since"], 0, 0)
			wire.Range(p["tailLines"], 1, 0)
		}),
		OutputSchema: wire.OutputSchema[wire.ProcessReply](nil),
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
		OutputSchema: wire.OutputSchema[wire.ProcessReply](nil),
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
			wire.Default(wire.Range(p["graceMs"], 0, limits.ProcessMaxGraceMs), limits.ProcessDefaultGraceMs)
		}),
		OutputSchema: wire.OutputSchema[wire.ProcessReply](nil),
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
		OutputSchema: wire.OutputSchema[wire.ProcessList](nil),
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
			wire.Default(wire.Range(w.Properties["idleMs"], limits.ProcessMinIdleMs, limits.ProcessMaxIdleMs), limits.ProcessDefaultIdleMs)
			wire.Default(wire.Range(w.Properties["timeoutMs"], 0, limits.ProcessMaxTimeoutMs), limits.ProcessDefaultTimeoutMs)
		}
		if adjust != nil {
			adjust(p)
		}
	})
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
				return out, rpc.Errorf(rpc.InvalidArgument, "%s: wait.until %q is not one of %s", method, u, strings.Join(process.WaitEvents, ", "))
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
func millis(method, name string, v int64, lo, hi int) (time.Duration, error) {
	if v < int64(lo) || v > int64(hi) {
		return 0, rpc.Errorf(rpc.InvalidArgument, "%s: %s %v is not an integer in %d..%d", method, name, v, lo, hi)
	}
	return time.Duration(v) * time.Millisecond, nil
}

// intIn checks an optional integer in lo..hi, def when absent.
func intIn(method, name string, v *int64, lo, hi, def int) (int, error) {
	if v == nil {
		return def, nil
	}
	if *v < int64(lo) || *v > int64(hi) {
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
	if spec.Env, err = bashEnv(m, p.Env); err != nil {
		return nil, err
	}
	if spec.Dir, err = bashDir(s, m, p.Cwd); err != nil {
		return nil, err
	}
	spec.Sandbox = s.policy()
	docs := watchUnsaved(s)
	r, err := s.processes.Start(ctx, spec, w)
	if r != nil {
		r.Notice = docs.notice()
	}
	return processResult(m, r, err)
}

// processID checks that id is given.
func processID(method string, id *string) (string, error) {
	if id == nil || *id == "" {
		return "", rpc.Errorf(rpc.InvalidArgument, "%s: id is required", method)
	}
	return *id, nil
}

func processReadCall(ctx context.Context, s *Session, call *rpc.Call) (any, error) {
	const m = "process/read"
	var p wire.ProcessReadParams
	if err := call.Decode(&p); err != nil {
		return nil, err
	}
	id, err := processID(m, p.ID)
	if err != nil {
		return nil, err
	}
	since := p.Since
	if since != nil && *since < 0 {
		return nil, rpc.Errorf(rpc.InvalidArgument, "%s: since %v is not a cursor (an integer ≥ 0)", m, *since)
	}
	tail, err := intIn(m, "tailLines", p.TailLines, 1, 1<<31-1, 0)
	if err != nil {
		return nil, err
	}
	w, err := decodeWait(m, p.Wait)
	if err != nil {
		return nil, err
	}
	r, err := s.processes.Read(ctx, id, since, tail, w)
	return processResult(m, r, err)
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
	id, err := processID(m, p.ID)
	if err != nil {
		return nil, err
	}
	w, err := decodeWait(m, p.Wait)
	if err != nil {
		return nil, err
	}
	r, err := s.processes.Write(ctx, id, []byte(data.String()), p.EOF, w)
	return processResult(m, r, err)
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
	id, err := processID(m, p.ID)
	if err != nil {
		return nil, err
	}
	var w *process.Wait
	if p.Wait != nil {
		dw, err := decodeWait(m, p.Wait)
		if err != nil {
			return nil, err
		}
		w = &dw
	}
	r, err := s.processes.Signal(ctx, id, sig, time.Duration(grace)*time.Millisecond, w)
	return processResult(m, r, err)
}

func processListCall(ctx context.Context, s *Session, call *rpc.Call) (any, error) {
	if string(call.Params) != "null" {
		var p struct{}
		if err := call.Decode(&p); err != nil {
			return nil, err
		}
	}
	return s.processes.List(), nil
}

// processResult is a process tool's answer: its reply, or its error as the
// wire error of method, the one place the engine's errors meet SPEC §10
// (a *process.Error keeps its kind; a cancelled call is CANCELLED; the rest
// IO_ERROR).
func processResult(method string, r *wire.ProcessReply, err error) (any, error) {
	var pe *process.Error
	switch {
	case errors.As(err, &pe):
		return nil, rpc.Errorf(pe.Kind, "%s: %v", method, err)
	case err != nil:
		return nil, rpc.AsError(fmt.Errorf("%s: %w", method, err))
	}
	return r, nil
}
