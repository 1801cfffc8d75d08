package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/toolrpc/toolrpc/internal/logging"
	"github.com/toolrpc/toolrpc/limits"
)

// Service is what the server runs: it builds the session at initialize,
// names the handler of each method, and releases the session at shutdown.
type Service interface {
	// Initialize builds the session and returns the initialize result.
	Initialize(ctx context.Context, p *protocol.InitializeParams) (any, error)
	// Handler returns the handler of method, or nil when there is none.
	Handler(method string) Handler
	// Shutdown releases the session. It runs after every call has replied.
	Shutdown()
}

// Starter is a Service with work to start once its initialize result is
// written (so initialize never waits for it, and anything the work sends
// the client comes after the result).
type Starter interface {
	// Started runs once, right after the initialize result is written.
	Started()
}

// Options tune a server.
type Options struct {
	// MaxConcurrent bounds the calls running at once (default limits.MaxConcurrentCalls).
	MaxConcurrent int
	// Logf receives diagnostics; nil discards them. Never stdout.
	Logf logging.Logf
	// OnEnding, when set, is called once as the session starts ending (exit,
	// end of input, host death, ctx done), before its calls are cancelled:
	// main bounds its other writes to the host there.
	OnEnding func()
}

type state int

const (
	stateNew state = iota
	stateRunning
	stateShutdown
)

// server is one connection's dispatcher.
type server struct {
	svc    Service
	log    logging.Logf
	stream *frameStream
	sem    chan struct{}
	base   context.Context

	mu      sync.Mutex
	state   state
	running map[string]context.CancelFunc
	calls   sync.WaitGroup
	acks    sync.WaitGroup // shutdown replies in flight

	shutdownOnce sync.Once
	exitOnce     sync.Once
	exit         chan int
	endOnce      sync.Once
	onEnding     func()
	hostGone     chan struct{} // closed when the processId host has exited
}

// Serve runs the JSON-RPC server on in/out until exit, end of input or host
// death, and returns the process exit status: 0 after shutdown, else 1.
// Closing in (or EOF on it) behaves like shutdown followed by exit.
func Serve(ctx context.Context, in io.Reader, out io.Writer, svc Service, opts Options) int {
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = limits.MaxConcurrentCalls
	}
	logger := opts.Logf
	var closer io.Closer
	if c, ok := in.(io.Closer); ok {
		closer = c
	}
	stream := newFrameStream(in, out, closer, logger)
	s := &server{
		stream:   stream,
		svc:      svc,
		log:      logger,
		sem:      make(chan struct{}, opts.MaxConcurrent),
		base:     context.WithValue(context.WithoutCancel(ctx), peerKey{}, stream.peer),
		running:  map[string]context.CancelFunc{},
		exit:     make(chan int, 1),
		onEnding: opts.OnEnding,
		hostGone: make(chan struct{}),
	}
	conn := jsonrpc2.NewConn(context.Background(), stream, s, jsonrpc2.SetLogger(logger))
	select {
	case code := <-s.exit:
		conn.Close()
		return code
	case <-conn.DisconnectNotify():
		// EOF on the input: shutdown + exit.
		return s.end(0)
	case <-ctx.Done():
		return s.end(1)
	case <-s.hostGone:
		return s.end(1)
	}
}

// beginEnding bounds every write to the host from now on: a host that has
// stopped reading stdout cannot keep an ending session alive.
func (s *server) beginEnding() {
	s.endOnce.Do(func() {
		s.stream.endWrites(time.Now().Add(limits.EndingWriteGrace))
		if s.onEnding != nil {
			s.onEnding()
		}
	})
}

// end ends the session as shutdown would and returns code. Writes are bounded
// by beginEnding; where the output takes no deadline, ExitBackstop bounds the
// wait for the calls' replies, so exit never waits on an unread pipe.
func (s *server) end(code int) int {
	s.beginEnding()
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.shutdown()
	}()
	backstop := time.NewTimer(limits.ExitBackstop)
	defer backstop.Stop()
	select {
	case <-done:
	case <-backstop.C:
		s.log.Printf("calls still replying %v after the session ended; exiting without them", limits.ExitBackstop)
	}
	return code
}

// Handle implements jsonrpc2.Handler. It runs serially in the read loop, so
// everything that must happen in arrival order (cancel registration,
// $/cancelRequest, state changes) happens here; the work runs in goroutines.
//
// req is jsonrpc2's stand-in; the message itself, decoded once, is the
// stream's current one.
func (s *server) Handle(_ context.Context, conn *jsonrpc2.Conn, _ *jsonrpc2.Request) {
	req := s.stream.take()
	if req.id == nil {
		s.notification(req)
		return
	}
	id, params := req.id, req.params
	s.mu.Lock()
	st := s.state
	s.mu.Unlock()
	switch {
	case st == stateNew && req.method != "initialize":
		s.replyErr(id, &Error{Code: CodeServerNotInitialized, Message: fmt.Sprintf("%s before initialize", req.method)})
		return
	case st == stateShutdown:
		s.replyErr(id, &Error{Code: CodeInvalidRequest, Message: fmt.Sprintf("%s after shutdown", req.method)})
		return
	case req.method == "initialize":
		if st != stateNew {
			s.replyErr(id, &Error{Code: CodeInvalidRequest, Message: "initialize may only be sent once"})
			return
		}
		s.initialize(id, params)
		return
	case req.method == "shutdown":
		s.mu.Lock()
		s.state = stateShutdown
		s.mu.Unlock()
		s.acks.Add(1)
		go func() {
			defer s.acks.Done()
			s.shutdown()
			s.reply(id, nil, nil)
		}()
		return
	}
	h := s.svc.Handler(req.method)
	if h == nil {
		s.replyErr(id, &Error{Code: CodeMethodNotFound, Message: fmt.Sprintf("method not found: %s", req.method)})
		return
	}
	key := idKey(string(id))
	ctx, cancel := context.WithCancel(s.base)
	s.mu.Lock()
	if s.state == stateShutdown {
		s.mu.Unlock()
		cancel()
		s.replyErr(id, &Error{Code: CodeInvalidRequest, Message: fmt.Sprintf("%s after shutdown", req.method)})
		return
	}
	if _, dup := s.running[key]; dup {
		s.mu.Unlock()
		cancel()
		s.replyErr(id, &Error{Code: CodeInvalidRequest, Message: fmt.Sprintf("request id %s is already in use", id)})
		return
	}
	s.running[key] = cancel
	s.calls.Add(1)
	s.mu.Unlock()

	call := NewCall(req.method, id, params, func(method string, p any) error {
		return s.stream.writeNotification(method, p)
	})
	mark := s.stream.inputMark()
	go s.run(ctx, cancel, id, key, mark, call, h)
}

// run waits for the input that arrived with the request to be handled (a
// $/cancelRequest in it must win), then for a slot, runs the handler and
// replies. A call cancelled before its handler starts never starts it: when
// the slot and the cancel are both ready, select may pick either, so the
// context is checked again once the slot is taken.
func (s *server) run(ctx context.Context, cancel context.CancelFunc, id json.RawMessage, key string, mark int64, call *Call, h Handler) {
	defer s.calls.Done()
	defer cancel()
	var result any
	var err error
	s.stream.awaitHandled(ctx, mark)
	select {
	case s.sem <- struct{}{}:
		if ctx.Err() != nil {
			err = Errorf(Cancelled, "%s cancelled before it started", call.Method)
		} else {
			result, err = s.invoke(ctx, call, h)
		}
		<-s.sem
	case <-ctx.Done():
		err = fmt.Errorf("%s cancelled before it started: %w", call.Method, ctx.Err())
	}
	call.finish()
	s.mu.Lock()
	delete(s.running, key)
	s.mu.Unlock()
	s.reply(id, result, err) // AsError makes a context error CANCELLED
	call.Replied()
}

// invoke runs h, turning a panic into an internal error so the server keeps serving.
func (s *server) invoke(ctx context.Context, call *Call, h Handler) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Printf("panic in %s: %v\n%s", call.Method, r, debug.Stack())
			result, err = nil, &Error{Code: CodeInternalError, Message: fmt.Sprintf("internal error in %s: %v", call.Method, r)}
		}
	}()
	return h(ctx, call)
}

func (s *server) initialize(id, params json.RawMessage) {
	var p protocol.InitializeParams
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage("{}")
	}
	params = emptyArraysAsObjects(params, "capabilities", "initializationOptions")
	if err := json.Unmarshal(params, &p); err != nil {
		s.replyErr(id, Errorf(InvalidArgument, "initialize: bad params: %v", err))
		return
	}
	res, err := s.svc.Initialize(context.WithValue(s.base, initParamsKey{}, params), &p)
	if err != nil {
		s.reply(id, nil, err)
		return
	}
	s.mu.Lock()
	s.state = stateRunning
	s.mu.Unlock()
	if p.ProcessID > 0 && !isAncestor(int(p.ProcessID), os.Getpid()) {
		s.log.Printf("processId %d is not an ancestor of this server (a transport or another PID namespace?); host death is detected by stdin EOF", p.ProcessID)
	} else if p.ProcessID > 0 {
		go watchHost(int(p.ProcessID), s.log, func() {
			s.beginEnding()
			s.log.Printf("host process %d is gone; exiting", p.ProcessID)
			close(s.hostGone)
		})
	}
	s.reply(id, res, nil)
	if st, ok := s.svc.(Starter); ok {
		st.Started()
	}
}

func (s *server) notification(req message) {
	switch req.method {
	case "exit":
		s.mu.Lock()
		code := 1
		if s.state == stateShutdown {
			code = 0
		}
		s.mu.Unlock()
		// Every call replies (cancelled if need be) and shutdown is
		// acknowledged before the connection closes — within
		// EndingWriteGrace if the host stopped reading.
		s.beginEnding()
		s.shutdown()
		s.acks.Wait()
		s.finish(code)
	case "$/cancelRequest":
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(req.params, &p) != nil || len(p.ID) == 0 {
			return
		}
		var buf bytes.Buffer
		if json.Compact(&buf, p.ID) != nil {
			return
		}
		s.mu.Lock()
		cancel := s.running[idKey(buf.String())]
		s.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	default:
		// initialized and unknown notifications are accepted without
		// effect, unless the service takes them.
		s.mu.Lock()
		running := s.state == stateRunning
		s.mu.Unlock()
		if n, ok := s.svc.(Notifier); ok && running {
			n.Notify(req.method, req.params)
		}
	}
}

// shutdown cancels every running call, waits for their replies, then
// releases the session. Later calls wait for the first to finish.
func (s *server) shutdown() {
	s.mu.Lock()
	s.state = stateShutdown
	for _, cancel := range s.running {
		cancel()
	}
	s.mu.Unlock()
	s.calls.Wait()
	s.shutdownOnce.Do(s.svc.Shutdown)
}

func (s *server) finish(code int) {
	s.exitOnce.Do(func() { s.exit <- code })
}

// reply writes the reply to id: the result is marshalled once and written
// with the client's original id text, or the error through AsError. The
// stream's write lock serialises it with every other frame.
func (s *server) reply(id json.RawMessage, result any, err error) {
	if err != nil {
		s.replyErr(id, AsError(err))
		return
	}
	b, merr := marshal(result)
	if merr != nil {
		s.replyErr(id, &Error{Code: CodeInternalError, Message: "marshal result: " + merr.Error()})
		return
	}
	if werr := s.stream.writeResult(id, b); werr != nil {
		s.log.Printf("reply %s: %v", id, werr)
	}
}

func (s *server) replyErr(id json.RawMessage, e *Error) {
	wire := wireError{Code: e.Code, Message: e.Message}
	data, err := e.wireData()
	if err != nil {
		s.log.Printf("error data for %s: %v", id, err)
	} else {
		wire.Data = data
	}
	s.stream.writeError(id, wire)
}
