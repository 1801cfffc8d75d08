package methods

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/toolrpc/toolrpc/internal/capture"
	"github.com/toolrpc/toolrpc/internal/roots"
	"github.com/toolrpc/toolrpc/internal/sandbox"
	"github.com/toolrpc/toolrpc/internal/shell"
	"github.com/toolrpc/toolrpc/limits"
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
				"With session (a name), commands run one after another in one long-lived bash: cd, export, functions, aliases, "+
				"set/shopt options and a sourced venv persist, each command keeping every guarantee above; exit or exec ends the "+
				"session (the result says state was lost), restart starts a fresh shell; at most %d sessions. "+
				"Prefer Read, Grep and Glob over cat, grep and find: their results are bounded and paged.",
				limits.BashDefaultTimeoutSeconds, limits.BashMinTimeoutSeconds, limits.BashMaxTimeoutSeconds,
				limits.ShellBudgetLines, limits.ShellBudgetBytes/limits.KB, limits.ShellErrBudgetLines, limits.ShellErrBudgetBytes/limits.KB,
				limits.CaptureMaxBytes/limits.KB, limits.CaptureMaxLines, limits.SpillMaxBytes/limits.KB,
				limits.StreamFullBytes/limits.KB, limits.StreamThrottledChunksPerSecond,
				limits.ShellSessionsMax)
		},
		InputSchema: wire.InputSchema[wire.BashParams](func(p wire.Props) {
			p["command"].MinLength = wire.Ptr(1)
			wire.Default(wire.Range(p["timeout"], limits.BashMinTimeoutSeconds, limits.BashMaxTimeoutSeconds), limits.BashDefaultTimeoutSeconds)
			p["workDoneToken"].Types = []string{"string", "integer"}
			p["session"].Pattern = wire.SessionNamePattern
		}),
		OutputSchema: wire.OutputSchema[wire.BashResult](nil),
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
	session string // "" without a session (SPEC §6.7)
	restart bool
	cwd     bool // the call named cwd
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
	if err := bashSessionDecode(r, &p); err != nil {
		return nil, err
	}
	r.cwd = p.Cwd != nil
	var err error
	if r.env, err = bashEnv("bash", p.Env); err != nil {
		return nil, err
	}
	if r.dir, err = bashDir(s, "bash", p.Cwd); err != nil {
		return nil, err
	}
	return r, nil
}

// bashEnv validates env, a param of method (bash, process/start), and
// returns it as sorted NAME=value pairs.
func bashEnv(method string, env map[string]string) ([]string, error) {
	pairs, err := shell.Env(env)
	if err != nil {
		return nil, rpc.Errorf(rpc.InvalidArgument, "%s: %v", method, err)
	}
	return pairs, nil
}

// bashDir resolves cwd, a param of method (bash, process/start; default:
// the first workspace root): an existing directory inside the workspace.
func bashDir(s *Session, method string, cwd *string) (string, error) {
	if cwd == nil {
		return s.roots.First(), nil
	}
	rp, err := resolvePath(s, method+": cwd", *cwd)
	switch {
	case err != nil:
		return "", err
	case rp.Root != roots.Workspace:
		return "", rpc.Errorf(rpc.PermissionDenied, "%s: cwd %s is not inside the workspace", method, rp.Display)
	case !rp.Exists:
		return "", rpc.Errorf(rpc.NotFound, "%s: cwd %s does not exist", method, rp.Display)
	}
	fi, err := os.Stat(rp.Abs)
	if err != nil {
		return "", fmt.Errorf("%s: cwd %s: %w", method, rp.Display, err)
	}
	if !fi.IsDir() {
		return "", rpc.Errorf(rpc.InvalidArgument, "%s: cwd %s is not a directory", method, rp.Display)
	}
	return rp.Abs, nil
}

func bashCall(ctx context.Context, s *Session, call *rpc.Call) (any, error) {
	r, err := bashDecode(s, call)
	if err != nil {
		return nil, err
	}
	pol := s.policy()
	var wrap func(*exec.Cmd) error
	if r.session == "" {
		wrap, err = pol.Wrap()
	} else {
		err = pol.Usable() // Wrap's only error; a session makes its wrap when it starts a shell
	}
	if err != nil {
		return nil, rpc.Errorf(rpc.SandboxUnavailable, "bash: %v", err)
	}
	changed := pol.Watch()
	docs := watchUnsaved(s)
	spec := shell.Spec{
		Wrap:    wrap,
		Fork:    pol.Fork(),
		Unset:   pol.HiddenEnv(),
		Command: r.command, Dir: r.dir, Env: r.env, Stdin: r.stdin, Timeout: r.timeout,
		Progress: func(c capture.Chunk) error { return call.Progress(r.token, c) },
		Spill:    s.Scratch,
		Logf:     s.Logf,
	}
	var res *wire.BashResult
	if r.session != "" {
		res, err = bashSessionRun(ctx, s, r, spec, pol)
	} else {
		res, err = shell.Run(ctx, spec)
	}
	var timeout *shell.TimeoutError
	var cancelled *shell.CancelledError
	var setup *sandbox.SetupError
	switch {
	case errors.As(err, &setup):
		return nil, rpc.Errorf(rpc.SandboxUnavailable, "bash: %v", setup)
	case errors.As(err, &timeout):
		return nil, rpc.Errorf(rpc.Timeout, "bash: %v", timeout).WithData(res)
	case errors.As(err, &cancelled):
		return nil, rpc.AsError(fmt.Errorf("bash: %w", err)).WithData(res)
	case errors.Is(err, shell.ErrDirGone):
		return nil, rpc.Errorf(rpc.NotFound, "bash: working directory %s no longer exists", r.dir)
	case err != nil:
		return nil, fmt.Errorf("bash: %w", err)
	}
	res.Sandbox = pol.Report(res.Stderr+"\n"+res.Stdout, r.dir, changed())
	res.Notice = docs.notice()
	return res, nil
}
