package methods

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/wire"
)

// shellRun is one command a dialect's shell tool runs through tools/bash,
// the one shell engine: its params, as tools/bash takes them.
type shellRun wire.BashParams

// run runs the command through tools/bash and returns its result; a
// timeout or cancel returns the partial result with timedOut or the error.
// The dialects stream no progress: the model reads the final result.
func (r shellRun) run(ctx context.Context, s *Session, id json.RawMessage) (res *wire.BashResult, timedOut bool, err error) {
	params, err := json.Marshal(wire.BashParams(r))
	if err != nil {
		return nil, false, err
	}
	bash, _ := Lookup("tools/bash")
	call := rpc.NewCall("tools/bash", id, params, func(string, any) error { return nil })
	v, err := bash.Call(ctx, s, call)
	call.Replied()
	var e *rpc.Error
	if errors.As(err, &e) && e.Kind == rpc.Timeout {
		if partial, ok := e.Data.(*wire.BashResult); ok {
			return partial, true, nil
		}
		return &wire.BashResult{}, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	return v.(*wire.BashResult), false, nil
}

// timeoutSeconds turns a dialect's timeout in milliseconds into tools/bash's
// seconds, clamped to its range; nil keeps the default.
func timeoutSeconds(ms *int) *float64 {
	if ms == nil {
		return nil
	}
	t := min(max(float64(*ms)/1000, limits.BashMinTimeoutSeconds), limits.BashMaxTimeoutSeconds)
	return &t
}

// combinedOutput is a result's stdout then its stderr, both always (the
// stderr tail is never dropped), then how the command ended when it did
// not exit 0.
func combinedOutput(res *wire.BashResult, timedOut bool) string {
	var b strings.Builder
	b.WriteString(res.Stdout)
	if res.Stderr != "" {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		b.WriteString(res.Stderr)
	}
	end := ""
	switch {
	case timedOut:
		end = "[timed out; the command's process tree was killed]"
	case res.Signal != "":
		end = "[killed by " + res.Signal + "]"
	case res.ExitCode != nil && *res.ExitCode != 0:
		end = fmt.Sprintf("[exit code %d]", *res.ExitCode)
	}
	if end != "" {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		b.WriteString(end)
	}
	return b.String()
}

// anthropicBashMethod is Anthropic's bash (SPEC §16).
func anthropicBashMethod() Method {
	return dialectMethod(Anthropic, "bash", func(Face) string {
		return fmt.Sprintf("Anthropic's bash: {command} runs in one persistent shell (a tools/bash session: cd, variables, functions persist); {restart: true} starts a fresh one. "+
			"The result holds stdout (head kept, at most %d lines / %d KB) and stderr (tail kept, at most %d lines / %d KB), both always, "+
			"each cut marked with counts and saved to a spill file, then the exit code when not 0. Timeout %d s; the whole process tree is killed. "+
			"Returns {content, is_error}, a tool_result.",
			limits.ShellBudgetLines, limits.ShellBudgetBytes/limits.KB, limits.ShellErrBudgetLines, limits.ShellErrBudgetBytes/limits.KB,
			limits.BashDefaultTimeoutSeconds)
	}, wire.InputSchema[wire.AnthropicBashParams](nil), wire.OutputSchema[wire.ToolResult](nil), anthropicBashCall)
}

func anthropicBashCall(ctx context.Context, s *Session, call *rpc.Call) DialectReply {
	var p wire.AnthropicBashParams
	if err := json.Unmarshal(call.Params, &p); err != nil {
		return toolError("Error: bad input: %v", err)
	}
	if p.Command == "" && !p.Restart {
		return toolError("Error: no command provided.")
	}
	res, timedOut, err := anthropicShell(p).run(ctx, s, call.ID)
	if err != nil {
		return toolFailed(err)
	}
	if p.Command == "" {
		return toolReply{Content: "tool has been restarted."}
	}
	text := combinedOutput(res, timedOut)
	if res.Session != nil && res.Session.Notice != "" && !p.Restart {
		text += "\n[" + res.Session.Notice + "]"
	}
	return toolReply{Content: text, IsError: timedOut}
}

// openAIShellMethod is OpenAI's shell (SPEC §16).
func openAIShellMethod() Method {
	return dialectMethod(OpenAI, "shell", func(Face) string {
		return fmt.Sprintf("OpenAI's shell: {commands: [...], timeout_ms?, max_output_length?} (a shell_call's action, bare or as {action}) "+
			"runs each command with bash -c in turn, each with its own timeout (default %d s). "+
			"Returns {output: [{stdout, stderr, outcome: {type: exit, exit_code} | {type: timeout}}], max_output_length}: "+
			"a shell_call_output, one entry per command, max_output_length echoed. Each stream is bounded by max_output_length characters "+
			"and by %d KB (stdout's head, stderr's tail), every cut marked with counts.",
			limits.BashDefaultTimeoutSeconds, limits.ShellBudgetBytes/limits.KB)
	}, wire.InputSchema[wire.ShellParams](nil), wire.OutputSchema[wire.ShellResult](nil), openAIShellCall)
}

// shellReply is openai/shell's DialectReply.
type shellReply wire.ShellResult

func (r shellReply) ModelText() string {
	var b strings.Builder
	for i, o := range r.Output {
		fmt.Fprintf(&b, "$ command %d: %s", i+1, o.Outcome.Type)
		if o.Outcome.ExitCode != nil {
			fmt.Fprintf(&b, " %d", *o.Outcome.ExitCode)
		}
		fmt.Fprintf(&b, "\n%s", o.Stdout)
		if o.Stderr != "" {
			fmt.Fprintf(&b, "\n[stderr]\n%s", o.Stderr)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func (r shellReply) ModelFailed() bool { return false }

// MarshalJSON keeps the wire shape.
func (r shellReply) MarshalJSON() ([]byte, error) { return json.Marshal(wire.ShellResult(r)) }

func openAIShellCall(ctx context.Context, s *Session, call *rpc.Call) DialectReply {
	var p wire.ShellParams
	if err := json.Unmarshal(call.Params, &p); err != nil {
		return shellReply{Output: []wire.ShellOutput{{Stderr: "bad input: " + err.Error(), Outcome: wire.ShellOutcome{Type: "exit", ExitCode: wire.Ptr(2)}}}}
	}
	if p.Action != nil {
		p.ShellAction = *p.Action
	}
	out := shellReply{Output: []wire.ShellOutput{}, MaxOutputLength: p.MaxOutputLength}
	for _, c := range p.Commands {
		res, timedOut, err := shellRun{Command: c, Timeout: timeoutSeconds(p.TimeoutMs)}.run(ctx, s, call.ID)
		if err != nil {
			out.Output = append(out.Output, wire.ShellOutput{Stderr: modelError(err), Outcome: wire.ShellOutcome{Type: "exit", ExitCode: wire.Ptr(126)}})
			continue
		}
		o := wire.ShellOutput{Stdout: res.Stdout, Stderr: res.Stderr, Outcome: wire.ShellOutcome{Type: "exit", ExitCode: res.ExitCode}}
		switch {
		case timedOut:
			o.Outcome = wire.ShellOutcome{Type: "timeout"}
		case res.ExitCode == nil:
			o.Outcome.ExitCode = wire.Ptr(128 + 9) // ended by a signal, as a shell reports it
		}
		if p.MaxOutputLength != nil {
			o.Stdout = headChars(o.Stdout, *p.MaxOutputLength, res.StdoutInfo)
			o.Stderr = tailChars(o.Stderr, *p.MaxOutputLength, res.StderrInfo)
		}
		out.Output = append(out.Output, o)
	}
	return out
}

// headChars keeps the first n bytes of s (whole UTF-8 characters), the
// head of a stream info describes, and a marker counting what the stream
// wrote and what is kept.
func headChars(s string, n int, info wire.StreamInfo) string {
	if n < 0 || len(s) <= n {
		return s
	}
	k := n
	for k > 0 && k < len(s) && s[k]&0xC0 == 0x80 {
		k--
	}
	return s[:k] + "\n" + cutMarker(n, k, strings.Count(s[:k], "\n"), info)
}

// tailChars keeps the last n bytes of s (whole UTF-8 characters), the
// tail of a stream info describes, after a marker counting what the
// stream wrote and what is kept.
func tailChars(s string, n int, info wire.StreamInfo) string {
	if n < 0 || len(s) <= n {
		return s
	}
	k := len(s) - n
	for k < len(s) && s[k]&0xC0 == 0x80 {
		k++
	}
	return cutMarker(n, len(s)-k, strings.Count(s[k:], "\n"), info) + "\n" + s[k:]
}

// cutMarker says what a max_output_length cut kept of a stream.
func cutMarker(n, keptBytes, keptLines int, info wire.StreamInfo) string {
	spill := ""
	if info.Spill != "" {
		spill = "; the output is saved in " + info.Spill
	}
	return fmt.Sprintf("[... cut at max_output_length %d: %d of %d bytes and %d of %d lines kept%s]", n, keptBytes, info.Bytes, keptLines, info.Lines, spill)
}

// anthropicSession is the shell session (SPEC §6.7) Anthropic's bash runs
// in: one per toolrpc session, as the model expects one persistent shell.
const anthropicSession = "anthropic"

// anthropicShell is the tools/bash run of an Anthropic bash call: in the
// session, restarted first when the call asks (a restart alone runs the
// no-op ":" in the fresh shell).
func anthropicShell(p wire.AnthropicBashParams) shellRun {
	cmd := p.Command
	if cmd == "" {
		cmd = ":"
	}
	return shellRun{Command: cmd, Session: wire.Ptr(anthropicSession), Restart: p.Restart}
}
