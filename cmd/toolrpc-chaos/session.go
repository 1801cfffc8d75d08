//go:build linux

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolrpc/toolrpc/client"
)

// The faces a session speaks.
const (
	faceLSP         = "lsp"
	faceLSPProgress = "lsp+progress" // declares window.workDoneProgress
	faceMCP         = "mcp"
)

// tagKey is the environment variable every process a session starts
// carries (the server's environment is inherited by its guardian, its
// commands and their descendants), so survivors are found in /proc.
const tagKey = "TOOLRPC_CHAOS_TAG"

// session is one host session against one server process.
type session struct {
	c    *campaign
	sl   *slot
	n    int       // the session's number within its slot
	face string    // faceLSP, faceLSPProgress, faceMCP or faceMCPBatch
	tag  string    // tagKey=value
	t0   time.Time // the server's start (written under lmu)

	cmd     *exec.Cmd
	pid     int
	in      *os.File
	out     *gatedReader
	lsp     *client.Conn
	mcs     *mcp.ClientSession
	logPath string
	errPath string
	exited  chan struct{}
	waitErr error

	clock    freezeClock
	ended    atomic.Bool // a fault or the driver ended the session: calls may fail
	endedAt  atomic.Int64
	endHow   string
	dataSeen atomic.Bool // a data-dir fault overlapped the session
	base     usage

	lmu sync.Mutex
	log []action

	pmu         sync.Mutex
	procs       []string // process ids started
	mcpProgress sync.Map // progress token -> *progressSeen
}

// action is one entry of a session's call log: a call or a fault, with
// when it started and how it ended. --replay runs a log's actions again.
type action struct {
	T       int64  `json:"t"` // ms since the session started
	Worker  int    `json:"w"` // -1: the fault injector
	Call    *call  `json:"call,omitempty"`
	Fault   string `json:"fault,omitempty"`
	Arg     int64  `json:"arg,omitempty"` // the fault's duration or limit
	Outcome string `json:"outcome,omitempty"`
	Ms      int64  `json:"ms,omitempty"`
}

// call is one request as sent.
type call struct {
	Method   string          `json:"method"`
	Params   json.RawMessage `json:"params,omitempty"`
	CancelMs int64           `json:"cancelMs,omitempty"` // $/cancelRequest after this long; 0 never
	Progress bool            `json:"progress,omitempty"`
	// File and Expect: the edits/ file an edit or write changes and the
	// bytes it must leave there, so a replay knows them too.
	File   string  `json:"file,omitempty"`
	Expect *string `json:"expect,omitempty"`
}

// outcome is how a call ended: a result, an error reply, or a transport
// failure.
type outcome struct {
	raw      json.RawMessage
	rpc      *client.Error
	err      error
	progress []json.RawMessage
}

func (o outcome) String() string {
	switch {
	case o.err != nil:
		return "transport: " + truncate(o.err.Error(), 200)
	case o.rpc != nil:
		return fmt.Sprintf("error %d %s: %s", o.rpc.Code, o.rpc.Kind, truncate(o.rpc.Message, 200))
	}
	return fmt.Sprintf("ok %d bytes", len(o.raw))
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// spawn starts the server for s, with an fd limit when nofile > 0, and
// initializes it.
func (s *session) spawn(ctx context.Context, nofile uint64) error {
	dir := filepath.Join(s.c.runDir, "logs")
	s.logPath = filepath.Join(dir, fmt.Sprintf("slot%d-s%d.log", s.sl.n, s.n))
	s.errPath = filepath.Join(dir, fmt.Sprintf("slot%d-s%d.stderr", s.sl.n, s.n))
	errf, err := os.Create(s.errPath)
	if err != nil {
		return err
	}
	defer errf.Close()
	args := []string{"--data-dir", s.c.dataDir, "--session", s.sl.sessionID, "--log-file", s.logPath}
	if s.face == faceMCP || s.face == faceMCPBatch {
		args = append([]string{"mcp", "--root", s.sl.ws}, args...)
	}
	s.cmd = exec.Command(s.c.cfg.bin, args...)
	s.cmd.Dir = s.sl.ws
	s.cmd.Env = append(os.Environ(), s.tag)
	s.cmd.Stderr = errf
	inR, inW, err := os.Pipe()
	if err != nil {
		return err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return err
	}
	s.cmd.Stdin, s.cmd.Stdout = inR, outW
	err = s.cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return err
	}
	s.pid = s.cmd.Process.Pid
	// Under lmu: the session is live already, and a data-dir fault records
	// itself in every live session's log (record reads t0).
	s.lmu.Lock()
	s.t0 = time.Now()
	s.lmu.Unlock()
	if nofile > 0 {
		lim := syscall.Rlimit{Cur: nofile, Max: nofile}
		_ = prlimit(s.pid, syscall.RLIMIT_NOFILE, &lim)
	}
	s.exited = make(chan struct{})
	go func() {
		s.waitErr = s.cmd.Wait()
		close(s.exited)
	}()
	s.in = inW
	s.out = newGatedReader(outR)
	ictx, cancel := context.WithTimeout(ctx, s.c.cfg.grace+10*time.Second)
	defer cancel()
	switch s.face {
	case faceMCP:
		return s.connectMCP(ictx)
	case faceMCPBatch:
		return nil // the batch host writes initialize with its calls
	}
	return s.connectLSP(ictx)
}

func (s *session) connectLSP(ctx context.Context) error {
	s.lsp = client.New(s.out, s.in, client.Options{})
	caps := map[string]any{}
	if s.face == faceLSPProgress {
		caps["window"] = map[string]any{"workDoneProgress": true}
	}
	p := map[string]any{"processId": os.Getpid(), "rootUri": "file://" + s.sl.ws, "capabilities": caps,
		"initializationOptions": map[string]any{"sessionId": s.sl.sessionID, "dataDir": s.c.dataDir}}
	if err := s.lsp.Call(ctx, "initialize", p, nil); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	return s.lsp.Notify("initialized", struct{}{})
}

func (s *session) connectMCP(ctx context.Context) error {
	opts := &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		if v, ok := s.mcpProgress.Load(fmt.Sprint(r.Params.ProgressToken)); ok {
			v.(*progressSeen).add(r.Params.Progress)
		}
	}}
	cl := mcp.NewClient(&mcp.Implementation{Name: "toolrpc-chaos", Version: "1"}, opts)
	cs, err := cl.Connect(ctx, &mcp.IOTransport{Reader: s.out, Writer: s.in}, nil)
	if err != nil {
		return fmt.Errorf("mcp connect: %w", err)
	}
	s.mcs = cs
	return nil
}

// progressSeen records an MCP call's progress values, which must rise.
type progressSeen struct {
	mu     sync.Mutex
	last   float64
	n      int
	broken string
}

func (p *progressSeen) add(v float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n > 0 && v <= p.last && p.broken == "" {
		p.broken = fmt.Sprintf("progress %v after %v", v, p.last)
	}
	p.last = v
	p.n++
}

// record appends a to the call log and returns its index.
func (s *session) record(a action) int {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	a.T = time.Since(s.t0).Milliseconds()
	s.log = append(s.log, a)
	return len(s.log) - 1
}

func (s *session) finish(i int, out string) {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	s.log[i].Outcome = out
	s.log[i].Ms = time.Since(s.t0).Milliseconds() - s.log[i].T
}

func (s *session) callLog() []action {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	return append([]action(nil), s.log...)
}

// do makes c and watches its deadline: a call that takes longer than its
// deadline plus grace, not counting the time the session was frozen, is a
// hang, and ends the session.
func (s *session) do(ctx context.Context, worker int, c *call) outcome {
	i := s.record(action{Worker: worker, Call: c})
	s.c.stats.count("call "+c.Method, 1)
	done := make(chan outcome, 1)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if c.CancelMs > 0 {
		t := time.AfterFunc(time.Duration(c.CancelMs)*time.Millisecond, func() {
			s.c.stats.count("cancels", 1)
			cancel()
		})
		defer t.Stop()
	}
	go func() { done <- s.invoke(cctx, c) }()
	limit := deadlineOf(c) + s.c.cfg.grace
	start, frozen0 := time.Now(), s.clock.now()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	reported := false
	for {
		select {
		case o := <-done:
			s.finish(i, o.String())
			return o
		case <-tick.C:
		}
		if s.ended.Load() {
			if since := time.Since(time.UnixMilli(s.endedAt.Load())); since > 30*time.Second && !reported {
				reported = true
				s.violate("call-not-released", fmt.Sprintf("%s still waiting %v after the session ended (%s)", c.Method, since.Round(time.Second), s.endHow))
				s.out.Close()
			}
			continue
		}
		active := time.Since(start) - (s.clock.now() - frozen0)
		if active > limit && !reported {
			reported = true
			s.violate("hang", fmt.Sprintf("%s unanswered after %v of unfrozen time (deadline %v + grace %v); params %s",
				c.Method, active.Round(time.Millisecond), deadlineOf(c), s.c.cfg.grace, truncate(string(c.Params), 300)))
			s.kill("hang")
		}
	}
}

// invoke sends c on the session's face.
func (s *session) invoke(ctx context.Context, c *call) outcome {
	if s.face == faceMCP {
		return s.invokeMCP(ctx, c)
	}
	var o outcome
	var opts []client.CallOption
	if c.Progress {
		var mu sync.Mutex
		opts = append(opts, client.WithProgress(func(v json.RawMessage) {
			mu.Lock()
			o.progress = append(o.progress, v)
			mu.Unlock()
		}))
	}
	var params any
	if c.Params != nil {
		params = c.Params
	}
	err := s.lsp.Call(ctx, c.Method, params, &o.raw, opts...)
	var rpcErr *client.Error
	switch {
	case errors.As(err, &rpcErr):
		o.rpc = rpcErr
	case err != nil:
		o.err = err
	}
	return o
}

// mcpName is the MCP tool name of an LSP method.
func mcpName(method string) string {
	m := strings.TrimPrefix(method, "tools/")
	return strings.ReplaceAll(m, "/", "_")
}

func (s *session) invokeMCP(ctx context.Context, c *call) outcome {
	var o outcome
	if c.Method == "tools/list" {
		_, err := s.mcs.ListTools(ctx, nil)
		o.err = err
		o.raw = json.RawMessage(`{}`)
		return o
	}
	p := &mcp.CallToolParams{Name: mcpName(c.Method), Arguments: c.Params}
	var seen *progressSeen
	if c.Progress {
		tok := fmt.Sprintf("chaos-%d-%d", s.n, rand.Int64())
		seen = &progressSeen{}
		s.mcpProgress.Store(tok, seen)
		defer s.mcpProgress.Delete(tok)
		p.Meta = mcp.Meta{"progressToken": tok}
	}
	res, err := s.mcs.CallTool(ctx, p)
	var werr *jsonrpc.Error
	if errors.As(err, &werr) {
		o.rpc = &client.Error{Code: werr.Code, Message: werr.Message, Data: werr.Data}
		return o
	}
	if err != nil {
		o.err = err
		return o
	}
	if seen != nil {
		seen.mu.Lock()
		if seen.broken != "" {
			s.violate("mcp-progress", seen.broken)
		}
		seen.mu.Unlock()
	}
	return mcpOutcome(res)
}

// mcpOutcome is the outcome of a tools/call result: an isError result is
// an error whose kind is the first SPEC §10 code its text names.
func mcpOutcome(res *mcp.CallToolResult) outcome {
	var o outcome
	var text strings.Builder
	for _, ct := range res.Content {
		if t, ok := ct.(*mcp.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	if res.IsError {
		o.rpc = &client.Error{Code: -32001, Message: text.String(), Kind: firstCode(text.String())}
		return o
	}
	if res.StructuredContent != nil {
		o.raw, _ = json.Marshal(res.StructuredContent)
	} else {
		o.raw = json.RawMessage(`{}`)
	}
	return o
}

// firstCode returns the first SPEC §10 data.code an MCP error text names.
func firstCode(text string) string {
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return !(r >= 'A' && r <= 'Z' || r == '_') }) {
		if len(f) > 3 && strings.Contains(f, "_") || f == "TIMEOUT" || f == "CANCELLED" {
			return f
		}
	}
	return ""
}

// deadlineOf is how long c may take by its own params (a bash timeout, a
// process wait) before the grace.
func deadlineOf(c *call) time.Duration {
	var p struct {
		Timeout *float64 `json:"timeout"`
		GraceMs *int64   `json:"graceMs"`
		Wait    *struct {
			TimeoutMs *int64 `json:"timeoutMs"`
		} `json:"wait"`
	}
	_ = json.Unmarshal(c.Params, &p)
	d := time.Duration(0)
	switch {
	case c.Method == "tools/bash":
		d = 60 * time.Second
		if p.Timeout != nil && *p.Timeout > 0 && *p.Timeout <= 21600 {
			d = time.Duration(*p.Timeout * float64(time.Second))
		}
	case strings.HasPrefix(c.Method, "tools/process/"):
		d = 10 * time.Second
		if p.Wait != nil && p.Wait.TimeoutMs != nil && *p.Wait.TimeoutMs >= 0 {
			d = time.Duration(*p.Wait.TimeoutMs) * time.Millisecond
		}
		if p.GraceMs != nil && *p.GraceMs > 0 {
			d += time.Duration(*p.GraceMs) * time.Millisecond
		} else if c.Method == "tools/process/signal" {
			d += 2 * time.Second
		}
	}
	return d
}

// violate records a violation of this session.
func (s *session) violate(kind, detail string) {
	s.c.violate(violation{Kind: kind, Detail: detail, Slot: s.sl.n, Session: s.n, Face: s.face,
		SessionID: s.sl.sessionID, Log: s.callLog(), ServerLog: s.logPath})
}

// markEnded notes that the session is ending for why.
func (s *session) markEnded(why string) {
	if s.ended.CompareAndSwap(false, true) {
		s.endHow = why
		s.endedAt.Store(time.Now().UnixMilli())
	}
}

// killed reports whether the server was SIGKILLed.
func (s *session) killed() bool {
	return s.ended.Load() && (s.endHow == "kill-server" || s.endHow == "hang" || s.endHow == "connection lost")
}

// kill ends the session by SIGKILLing the server.
func (s *session) kill(why string) {
	s.markEnded(why)
	_ = syscall.Kill(s.pid, syscall.SIGCONT)
	_ = syscall.Kill(s.pid, syscall.SIGKILL)
	s.out.resume()
}

// closeStdin ends the session as a host that closes the server's input.
func (s *session) closeStdin(why string) {
	s.markEnded(why)
	s.in.Close()
}

// hostDies ends the session as a host that dies: both pipes close.
func (s *session) hostDies(why string) {
	s.markEnded(why)
	s.in.Close()
	s.out.Close()
}

// closePolitely ends the session with shutdown and exit (LSP) or by
// closing the MCP session.
func (s *session) closePolitely() error {
	s.markEnded("shutdown")
	if s.mcs != nil {
		return s.mcs.Close()
	}
	if s.lsp != nil {
		return s.lsp.Close()
	}
	s.in.Close()
	return nil
}

// awaitExit waits up to within for the server to exit, then SIGKILLs it,
// reporting that as a violation named kind; it releases the pipes.
func (s *session) awaitExit(within time.Duration, kind string) {
	select {
	case <-s.exited:
	case <-time.After(within):
		s.violate(kind, fmt.Sprintf("the server (pid %d) has not exited %v after the session ended (%s)", s.pid, within, s.endHow))
		_ = syscall.Kill(s.pid, syscall.SIGCONT)
		_ = syscall.Kill(s.pid, syscall.SIGKILL)
		<-s.exited
	}
	s.in.Close()
	if s.lsp != nil {
		s.lsp.Kill()
	}
	if s.mcs != nil {
		_ = s.mcs.Close()
	}
	s.out.Close()
}
