package methods

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/wire"
)

// The yield times Codex defaults to, in milliseconds.
var (
	execYieldMs  int64 = 10000
	stdinYieldMs int64 = 250
)

// execReply is openai/exec_command's and openai/write_stdin's DialectReply.
type execReply wire.ExecResult

func (r execReply) ModelText() string { return r.Output }
func (r execReply) ModelFailed() bool { return false }

// MarshalJSON keeps the wire shape.
func (r execReply) MarshalJSON() ([]byte, error) { return json.Marshal(wire.ExecResult(r)) }

// execCommandMethod is Codex's exec_command on §13's processes (SPEC §16).
func execCommandMethod() Method {
	return dialectMethod(OpenAI, "exec_command", func(Face) string {
		return fmt.Sprintf("Codex's exec_command: {cmd, workdir?, tty?, yield_time_ms? (default %d), max_output_tokens?} starts cmd as a toolrpc process "+
			"(its own process group, §14's sandbox, a log) and waits up to yield_time_ms for it to exit; "+
			"a command still running answers with a session ID for write_stdin. The output is bounded by §13's budget and by max_output_tokens "+
			"(%d bytes a token), the tail kept after a marker counting what was cut. Returns {output}, Codex's text.",
			execYieldMs, limits.BytesPerToken)
	}, wire.InputSchema[wire.ExecCommandParams](nil), wire.OutputSchema[wire.ExecResult](nil), execCommandCall)
}

// writeStdinMethod is Codex's write_stdin (SPEC §16).
func writeStdinMethod() Method {
	return dialectMethod(OpenAI, "write_stdin", func(Face) string {
		return fmt.Sprintf("Codex's write_stdin: {session_id, chars?, yield_time_ms? (default %d), max_output_tokens?} writes chars to the process "+
			"exec_command started (empty chars: only poll) and returns its output since the last call, Codex's text.", stdinYieldMs)
	}, wire.InputSchema[wire.WriteStdinParams](nil), wire.OutputSchema[wire.ExecResult](nil), writeStdinCall)
}

func execCommandCall(ctx context.Context, s *Session, call *rpc.Call) DialectReply {
	var p wire.ExecCommandParams
	if err := json.Unmarshal(call.Params, &p); err != nil || p.Cmd == "" {
		return execReply{Output: "exec_command: cmd is required"}
	}
	start := time.Now()
	params := wire.ProcessStartParams{Command: &p.Cmd, Wait: execWait(p.YieldTimeMs, execYieldMs)}
	if p.Workdir != "" {
		params.Cwd = &p.Workdir
	}
	if p.Tty {
		params.Mode = wire.Ptr("pty")
	}
	var r wire.ProcessReply
	if err := callTool(ctx, s, "tools/process/start", call.ID, params, &r); err != nil {
		return execReply{Output: "exec_command failed: " + modelError(err)}
	}
	return execReply{Output: execText(r, start, p.MaxOutputTokens)}
}

func writeStdinCall(ctx context.Context, s *Session, call *rpc.Call) DialectReply {
	var p wire.WriteStdinParams
	if err := json.Unmarshal(call.Params, &p); err != nil {
		return execReply{Output: "write_stdin: bad input: " + err.Error()}
	}
	start := time.Now()
	id := "p" + strconv.FormatInt(p.SessionID, 10)
	var r wire.ProcessReply
	var err error
	if p.Chars != "" {
		err = callTool(ctx, s, "tools/process/write", call.ID, wire.ProcessWriteParams{ID: &id, Data: &p.Chars, Wait: execWait(p.YieldTimeMs, stdinYieldMs)}, &r)
	} else {
		err = callTool(ctx, s, "tools/process/read", call.ID, wire.ProcessReadParams{ID: &id, Wait: execWait(p.YieldTimeMs, stdinYieldMs)}, &r)
	}
	if err != nil {
		return execReply{Output: fmt.Sprintf("write_stdin failed for session ID %d: %s", p.SessionID, modelError(err))}
	}
	return execReply{Output: execText(r, start, p.MaxOutputTokens)}
}

// execWait waits for the exit for at most ms (def when nil).
func execWait(ms *int64, def int64) *wire.ProcessWait {
	t := def
	if ms != nil && *ms > 0 {
		t = *ms
	}
	return &wire.ProcessWait{Until: []string{"exit"}, TimeoutMs: &t}
}

// execText is Codex's text for a process reply: chunk ID, wall time, how
// the process stands, the output's token count, the output.
func execText(r wire.ProcessReply, start time.Time, maxTokens *int) string {
	var id [3]byte
	_, _ = rand.Read(id[:])
	var b strings.Builder
	fmt.Fprintf(&b, "Chunk ID: %s\nWall time: %.4f seconds\n", hex.EncodeToString(id[:]), time.Since(start).Seconds())
	switch {
	case r.State == "exited" && r.ExitCode != nil:
		fmt.Fprintf(&b, "Process exited with code %d\n", *r.ExitCode)
	case r.State == "exited":
		fmt.Fprintf(&b, "Process exited with code %d (killed by %s)\n", 128+9, r.Signal)
	default:
		fmt.Fprintf(&b, "Process running with session ID %s\n", strings.TrimPrefix(r.ID, "p"))
	}
	out := r.Output
	fmt.Fprintf(&b, "Original token count: %d\nOutput:\n", (len(out)+limits.BytesPerToken-1)/limits.BytesPerToken)
	if maxTokens != nil && *maxTokens >= 0 && len(out) > *maxTokens*limits.BytesPerToken {
		keep := *maxTokens * limits.BytesPerToken
		k := len(out) - keep
		for k < len(out) && out[k]&0xC0 == 0x80 {
			k++
		}
		fmt.Fprintf(&b, "[... %d earlier bytes (%d lines) cut at max_output_tokens %d]\n", k, strings.Count(out[:k], "\n"), *maxTokens)
		out = out[k:]
	}
	if r.Truncated {
		fmt.Fprintf(&b, "[... %d bytes not kept by the process's log window]\n", r.OmittedBytes)
	}
	b.WriteString(out)
	return b.String()
}
