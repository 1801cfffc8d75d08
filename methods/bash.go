package methods

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/toolrpc/toolrpc/capture"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/procgroup"
	"github.com/toolrpc/toolrpc/roots"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/wire"
)

// bashMethod is tools/bash.
func bashMethod() Method {
	return Method{
		Name: "tools/bash",
		Tool: true,
		Describe: func(f Face) string {
			return fmt.Sprintf("Runs command with bash -c in cwd (inside the workspace), stdin from the stdin param or /dev/null, "+
				"PAGER=cat GIT_PAGER=cat GIT_TERMINAL_PROMPT=0. timeout is in seconds, default %d, allowed %d..%d; "+
				"on timeout or cancel the whole process tree is killed and the error's data holds the partial result. "+
				"stdout keeps its head: at most %d lines / %dKB, then a marker; stderr keeps its tail: at most %d lines / %dKB after a marker. "+
				"Each stream is captured up to %dKB / %d lines; a cut stream's captured copy (at most %dKB) is saved to a spill file "+
				"the marker names, for Grep or Read with offset/limit. Output streams as "+f.Progress()+", "+
				"in full up to %dKB per stream, then at most %d chunks a second of the latest output. "+
				"Prefer Read, Grep and Glob over cat, grep and find: their results are bounded and paged.",
				limits.BashDefaultTimeoutSeconds, limits.BashMinTimeoutSeconds, limits.BashMaxTimeoutSeconds,
				limits.ShellBudgetLines, limits.ShellBudgetBytes/limits.KB, limits.ShellErrBudgetLines, limits.ShellErrBudgetBytes/limits.KB,
				limits.CaptureMaxBytes/limits.KB, limits.CaptureMaxLines, limits.SpillMaxBytes/limits.KB,
				limits.StreamFullBytes/limits.KB, limits.StreamThrottledChunksPerSecond)
		},
		InputSchema: wire.InputSchema[wire.BashParams](func(p wire.Props) {
			p["command"].MinLength = wire.Ptr(1)
			wire.Default(wire.Range(p["timeout"], limits.BashMinTimeoutSeconds, limits.BashMaxTimeoutSeconds), limits.BashDefaultTimeoutSeconds)
			p["workDoneToken"].Types = []string{"string", "integer"}
		}),
		OutputSchema: wire.OutputSchema[wire.BashResult](),
		Call:         bashCall,
	}
}

// bashRun is one validated tools/bash request.
type bashRun struct {
	command string
	dir     string
	env     []string
	stdin   *string
	timeout time.Duration
	token   json.RawMessage
}

func bashDecode(s *Session, call *rpc.Call) (*bashRun, error) {
	var p wire.BashParams
	if err := call.Decode(&p); err != nil {
		return nil, err
	}
	if p.Command == "" {
		return nil, rpc.Errorf(rpc.InvalidArgument, "bash: command is required")
	}
	if strings.ContainsRune(p.Command, 0) {
		return nil, rpc.Errorf(rpc.InvalidArgument, "bash: command holds a NUL byte")
	}
	r := &bashRun{command: p.Command, stdin: p.Stdin, timeout: limits.BashDefaultTimeoutSeconds * time.Second, token: call.ID}
	if p.Timeout != nil {
		t := *p.Timeout
		if t < limits.BashMinTimeoutSeconds || t > limits.BashMaxTimeoutSeconds {
			return nil, rpc.Errorf(rpc.InvalidArgument, "bash: timeout %v is outside %d..%d seconds",
				t, limits.BashMinTimeoutSeconds, limits.BashMaxTimeoutSeconds)
		}
		r.timeout = time.Duration(t * float64(time.Second))
	}
	if tok := bytes.TrimSpace(p.WorkDoneToken); len(tok) > 0 && string(tok) != "null" {
		if tok[0] != '"' {
			if _, err := strconv.ParseInt(string(tok), 10, 64); err != nil {
				return nil, rpc.Errorf(rpc.InvalidArgument, "bash: workDoneToken must be a string or an integer, got %s", tok)
			}
		}
		r.token = tok
	}
	var err error
	if r.env, err = bashEnv(p.Env); err != nil {
		return nil, err
	}
	if r.dir, err = bashDir(s, p.Cwd); err != nil {
		return nil, err
	}
	return r, nil
}

// bashEnv validates env and returns it as sorted NAME=value pairs.
func bashEnv(env map[string]string) ([]string, error) {
	keys := make([]string, 0, len(env))
	for k, v := range env {
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(v, 0) {
			return nil, rpc.Errorf(rpc.InvalidArgument, "bash: env %q: names must be non-empty without '=' or NUL, values without NUL", k)
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, k+"="+env[k])
	}
	return out, nil
}

// bashDir resolves cwd (default: the first workspace root): an existing
// directory inside the workspace.
func bashDir(s *Session, cwd *string) (string, error) {
	if cwd == nil {
		return s.Roots.First(), nil
	}
	rp, err := resolvePath(s, "bash: cwd", *cwd)
	switch {
	case err != nil:
		return "", err
	case rp.Root != roots.Workspace:
		return "", rpc.Errorf(rpc.PermissionDenied, "bash: cwd %s is not inside the workspace", rp.Display)
	case !rp.Exists:
		return "", rpc.Errorf(rpc.NotFound, "bash: cwd %s does not exist", rp.Display)
	}
	fi, err := os.Stat(rp.Abs)
	if err != nil {
		return "", fmt.Errorf("bash: cwd %s: %w", rp.Display, err)
	}
	if !fi.IsDir() {
		return "", rpc.Errorf(rpc.InvalidArgument, "bash: cwd %s is not a directory", rp.Display)
	}
	return rp.Abs, nil
}

func bashCall(ctx context.Context, s *Session, call *rpc.Call) (any, error) {
	r, err := bashDecode(s, call)
	if err != nil {
		return nil, err
	}
	send := func(c capture.Chunk) error { return call.Progress(r.token, c) }
	outStream := capture.NewStreamer("stdout", send)
	errStream := capture.NewStreamer("stderr", send)
	outKeep := capture.NewHead(limits.CaptureMaxBytes, limits.CaptureMaxLines)
	errKeep := capture.NewTail(limits.CaptureMaxBytes, limits.CaptureMaxLines)

	start := time.Now()
	g, err := procgroup.StartContext(ctx, procgroup.Spec{
		Command: r.command,
		Dir:     r.dir,
		Env:     r.env,
		Stdin:   r.stdin,
		Stdout:  io.MultiWriter(outKeep, outStream),
		Stderr:  io.MultiWriter(errKeep, errStream),
	})
	if err != nil {
		outStream.Close()
		errStream.Close()
		if _, serr := os.Stat(r.dir); errors.Is(serr, fs.ErrNotExist) {
			// exec reports a missing working directory as a missing bash.
			return nil, rpc.Errorf(rpc.NotFound, "bash: working directory %s no longer exists", r.dir)
		}
		return nil, fmt.Errorf("bash: %w", err)
	}
	st, stop, err := bashWait(ctx, g, r.timeout)
	outStream.Close()
	errStream.Close()
	if err != nil && stop == nil {
		return nil, fmt.Errorf("bash: %w", err)
	}

	res := &wire.BashResult{DurationMs: time.Since(start).Milliseconds()}
	if st.Signal != "" {
		res.Signal = st.Signal
	} else {
		code := st.ExitCode
		res.ExitCode = &code
	}
	res.Stdout, res.StdoutInfo = bashCut(s, "bash-stdout", outKeep.Snapshot(), limits.ShellBudget(), limits.HeadCut)
	res.Stderr, res.StderrInfo = bashCut(s, "bash-stderr", errKeep.Snapshot(), limits.ShellErrBudget(), limits.TailCut)
	res.StdoutInfo.Chunks = outStream.Chunks()
	res.StderrInfo.Chunks = errStream.Chunks()
	res.Truncated = res.StdoutInfo.Truncated || res.StderrInfo.Truncated
	if stop != nil {
		return nil, stop.WithData(res)
	}
	return res, nil
}

// bashWait waits for g to exit, killing its tree when ctx ends (stop is
// CANCELLED) or timeout passes (stop is TIMEOUT).
func bashWait(ctx context.Context, g *procgroup.Group, timeout time.Duration) (procgroup.Status, *rpc.Error, error) {
	type waited struct {
		st  procgroup.Status
		err error
	}
	done := make(chan waited, 1)
	go func() {
		st, err := g.Wait()
		done <- waited{st, err}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var stop *rpc.Error
	var w waited
	select {
	case w = <-done:
	case <-ctx.Done():
		g.Kill()
		w = <-done
		stop = rpc.AsError(fmt.Errorf("bash: cancelled; the process tree was killed: %w", ctx.Err()))
	case <-timer.C:
		g.Kill()
		w = <-done
		stop = rpc.Errorf(rpc.Timeout, "bash: timed out after %s s; the process tree was killed",
			strconv.FormatFloat(timeout.Seconds(), 'f', -1, 64))
	}
	return w.st, stop, w.err
}

// bashCut bounds one captured stream with cut (HeadCut or TailCut). A cut
// stream's captured copy is spilled first, so the marker can name the file; a
// failed spill only drops that sentence from the marker.
func bashCut(s *Session, label string, snap capture.Snapshot, b limits.Budget, cut func(limits.Stream, limits.Budget) limits.Cut) (string, wire.StreamInfo) {
	in := limits.Stream{Text: snap.Text, Lines: snap.Lines, EdgeLineBytes: snap.EdgeLineBytes, Dropped: snap.OmittedBytes > 0}
	c := cut(in, b)
	info := wire.StreamInfo{Bytes: snap.Bytes, Lines: snap.Lines, Truncated: c.Truncated, OmittedBytes: snap.OmittedBytes, OmittedLines: snap.OmittedLines}
	if !c.Truncated {
		return c.Text, info
	}
	path, err := s.Scratch.Write(label, snap.Text)
	if err != nil {
		log.Printf("tools/bash: %v", err)
		return c.Text, info
	}
	in.Spill = path
	info.Spill = path
	return cut(in, b).Text, info
}
