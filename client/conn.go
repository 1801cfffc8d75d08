package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/lspframe"
	"github.com/toolrpc/toolrpc/wire"
)

// Bounds on waiting for a server that stopped answering; tests shorten them.
var (
	// cancelWait is how long a cancelled call waits for the server's reply
	// after $/cancelRequest before it gives up with the context's error.
	cancelWait = 30 * time.Second
	// shutdownWait is how long Close waits for the reply to shutdown.
	shutdownWait = 30 * time.Second
	// exitWait is how long Close waits for the server to end after exit
	// before it kills the process (or, attached, closes the reader).
	exitWait = 30 * time.Second
	// outputGrace is how long the server's output and its process may end
	// apart: a clean end of output waits this long for the exit status to
	// report, and Close this long for the output to end after the exit.
	outputGrace = time.Second
)

// Options configure a Conn.
type Options struct {
	// OnNotification, if set, is called with every notification the server
	// sends that is not a $/progress of a call made WithProgress, in arrival
	// order, on the goroutine that reads the server's output: it must not
	// block, nor wait for a call on the same Conn.
	OnNotification func(method string, params json.RawMessage)
	// Sandbox, if set, is the sandbox policy Initialize asks for (SPEC
	// §14), sent as initializationOptions.sandbox; nil leaves the server's
	// (its command line's, else auto). SandboxUpdate changes it later.
	Sandbox *wire.SandboxPolicy
	// OnApplyEdit, if set, applies the server's edits of the documents the
	// host opened with DidOpen (SPEC §15); Initialize then declares
	// workspace.applyEdit and workspaceEdit.documentChanges.
	OnApplyEdit ApplyEditHandler
}

// Conn is a connection to one toolrpc server. Its methods may be called
// concurrently.
type Conn struct {
	opts Options
	in   io.Closer // the server's input
	out  io.Closer // the server's output

	wmu sync.Mutex // serialises frames written to w
	w   *bufio.Writer

	mu      sync.Mutex
	next    int64
	pending map[int64]*pendingCall
	readErr error         // why reading stopped, set before done closes
	done    chan struct{} // closed when reading stops

	cmd     *exec.Cmd     // nil when attached
	exited  chan struct{} // closed when cmd has been waited for
	waitErr error

	closeOnce sync.Once
	closeErr  error
}

// pendingCall is a request awaiting its reply.
type pendingCall struct {
	reply    chan reply
	progress func(value json.RawMessage)
}

// reply is a reply as read: a result or an error.
type reply struct {
	result json.RawMessage
	err    *Error
}

// Start starts cmd as a server and returns a connection over its stdin and
// stdout, which must be unset. cmd.Stderr is the caller's (nil discards the
// server's log). The caller may read cmd.Process once Start returns; Close
// waits for the process.
func Start(cmd *exec.Cmd, opts Options) (*Conn, error) {
	if cmd.Stdin != nil || cmd.Stdout != nil {
		return nil, errors.New("client: Start needs a command without Stdin and Stdout")
	}
	// os.Pipe rather than StdinPipe/StdoutPipe: cmd.Wait then closes none of
	// our ends, so the process can be waited for while its output is read.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("client: start %s: %w", cmd.Path, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("client: start %s: %w", cmd.Path, err)
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("client: start %s: %w", cmd.Path, err)
	}
	c := newConn(outR, inW, opts)
	c.cmd = cmd
	c.exited = make(chan struct{})
	go func() {
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()
	go c.readLoop(outR)
	return c, nil
}

// New returns a connection to a server that reads its input from w and
// writes its output to r. Close closes both.
func New(r io.ReadCloser, w io.WriteCloser, opts Options) *Conn {
	c := newConn(r, w, opts)
	go c.readLoop(r)
	return c
}

func newConn(r io.Closer, w io.WriteCloser, opts Options) *Conn {
	return &Conn{
		opts: opts, in: w, out: r,
		w:       bufio.NewWriterSize(w, 64*limits.KB),
		pending: map[int64]*pendingCall{},
		done:    make(chan struct{}),
	}
}

// Initialize sends initialize with p, then the initialized notification,
// and returns the initialize result (SPEC §1: capabilities, serverInfo,
// limits, scratchDir; §14: the sandbox in force, see SandboxState). With
// Options.Sandbox set, p's initializationOptions are sent with that policy
// as their sandbox member; p itself is not changed.
func (c *Conn) Initialize(ctx context.Context, p *protocol.InitializeParams) (json.RawMessage, error) {
	if c.opts.Sandbox != nil {
		var err error
		if p, err = withSandbox(p, *c.opts.Sandbox); err != nil {
			return nil, err
		}
	}
	if c.opts.OnApplyEdit != nil {
		p = withEditCapabilities(p)
	}
	var result json.RawMessage
	if err := c.Call(ctx, "initialize", p, &result); err != nil {
		return nil, err
	}
	if err := c.Notify("initialized", struct{}{}); err != nil {
		return nil, err
	}
	return result, nil
}

// CallOption configures one call.
type CallOption func(*pendingCall)

// WithProgress delivers the value of every $/progress notification whose
// token is the call's request id to fn, in order, on the goroutine reading
// the server's output; every one is delivered before Call returns. fn must
// not block, nor wait for a call on the same Conn.
func WithProgress(fn func(value json.RawMessage)) CallOption {
	return func(p *pendingCall) { p.progress = fn }
}

// Call sends a request and waits for its reply. params is marshalled (nil
// sends no params); a result is unmarshalled into result unless it is nil.
// An error reply is returned as *Error.
//
// When ctx ends first, Call sends $/cancelRequest and waits for the reply
// (up to 30 s): a cancelled call's *Error carries the partial result in
// Data and wraps ctx.Err(); a call that completed before the cancel reached
// the server returns its result. When the connection ends first, the error
// wraps ErrClosed.
func (c *Conn) Call(ctx context.Context, method string, params, result any, opts ...CallOption) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("client: %s: %w", method, err)
	}
	p := &pendingCall{reply: make(chan reply, 1)}
	for _, o := range opts {
		o(p)
	}
	id, err := c.send(method, params, p)
	if err != nil {
		return err
	}
	var r reply
	select {
	case r = <-p.reply:
	case <-c.done:
		if r, err = c.lost(method, id, p); err != nil {
			return err
		}
	case <-ctx.Done():
		if r, err = c.cancel(ctx, method, id, p); err != nil {
			return err
		}
		if r.err != nil {
			r.err.cause = ctx.Err()
		}
	}
	if r.err != nil {
		return r.err
	}
	return decodeResult(method, r.result, result)
}

// decodeResult unmarshals raw into result; a *json.RawMessage gets raw as
// it is (it was read as valid JSON), saving a second scan of a large result.
func decodeResult(method string, raw json.RawMessage, result any) error {
	switch v := result.(type) {
	case nil:
		return nil
	case *json.RawMessage:
		*v = raw
		return nil
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return fmt.Errorf("client: %s: decode result: %w", method, err)
	}
	return nil
}

// send registers p under a fresh id and writes the request.
func (c *Conn) send(method string, params any, p *pendingCall) (int64, error) {
	c.mu.Lock()
	c.next++
	id := c.next
	c.pending[id] = p
	c.mu.Unlock()
	msg := request{JSONRPC: "2.0", ID: &id, Method: method, Params: params}
	if err := c.write(msg); err != nil {
		c.forget(id)
		return 0, c.writeError(method, err)
	}
	return id, nil
}

// cancel asks the server to cancel call id and waits for its reply.
func (c *Conn) cancel(ctx context.Context, method string, id int64, p *pendingCall) (reply, error) {
	if err := c.Notify("$/cancelRequest", map[string]int64{"id": id}); err != nil {
		c.forget(id)
		return reply{}, fmt.Errorf("client: %s: %w (and the cancel could not be sent: %v)", method, ctx.Err(), err)
	}
	t := time.NewTimer(cancelWait)
	defer t.Stop()
	select {
	case r := <-p.reply:
		return r, nil
	case <-c.done:
		return c.lost(method, id, p)
	case <-t.C:
		c.forget(id)
		return reply{}, fmt.Errorf("client: %s: %w (no reply %v after $/cancelRequest)", method, ctx.Err(), cancelWait)
	}
}

// lost returns the reply of a call whose connection ended if it was read
// just before the end, else the error saying the connection ended.
func (c *Conn) lost(method string, id int64, p *pendingCall) (reply, error) {
	select {
	case r := <-p.reply:
		return r, nil
	default:
	}
	c.forget(id)
	return reply{}, fmt.Errorf("client: %s: %w: %w", method, ErrClosed, c.readErr)
}

func (c *Conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// Notify sends a notification; params nil sends none.
func (c *Conn) Notify(method string, params any) error {
	if err := c.write(request{JSONRPC: "2.0", Method: method, Params: params}); err != nil {
		return c.writeError(method, err)
	}
	return nil
}

// writeError explains a failed write: a message that cannot be encoded, or
// a connection that ended (the server's input is closed).
func (c *Conn) writeError(method string, err error) error {
	var enc *encodeError
	if errors.As(err, &enc) {
		return fmt.Errorf("client: %s: %w", method, err)
	}
	select {
	case <-c.done:
		return fmt.Errorf("client: %s: %w: %w", method, ErrClosed, c.readErr)
	default:
		return fmt.Errorf("client: %s: %w: %w", method, ErrClosed, err)
	}
}

// encodeError is a message that could not be marshalled.
type encodeError struct{ err error }

func (e *encodeError) Error() string { return "encode: " + e.err.Error() }
func (e *encodeError) Unwrap() error { return e.err }

// request is a request or notification as written.
type request struct {
	JSONRPC string `json:"jsonrpc"`
	ID      *int64 `json:"id,omitempty"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

func (c *Conn) write(msg request) error {
	body, err := json.Marshal(msg)
	if err != nil {
		return &encodeError{err}
	}
	if len(body) > limits.MaxFrameBytes {
		// The server would answer it with a reply it cannot give this
		// call's id, so the call is refused here and the connection kept.
		return &encodeError{fmt.Errorf("the message is %d bytes, over the server's frame limit of %d (MAX_FRAME_BYTES)", len(body), limits.MaxFrameBytes)}
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := lspframe.Write(c.w, body); err != nil {
		return err
	}
	return c.w.Flush()
}

// Done is closed when the connection ends: the server's output ended or was
// not a valid frame, or Close was called.
func (c *Conn) Done() <-chan struct{} { return c.done }

// message is any frame the server sends.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *Error          `json:"error"`
}

// readLoop reads the server's output until it ends, routing replies to
// their calls and notifications to their callbacks.
func (c *Conn) readLoop(r io.Reader) {
	fr := lspframe.NewReader(r, limits.MaxFrameBytes)
	var err error
	for err == nil {
		var body []byte
		if body, err = fr.Read(); err != nil {
			break
		}
		err = c.dispatch(body)
	}
	if errors.Is(err, io.EOF) {
		err = c.exitCause()
	}
	c.mu.Lock()
	c.readErr = err
	c.mu.Unlock()
	close(c.done)
	c.out.Close()
}

// exitCause explains a clean end of the server's output, with the
// process's exit status when it ends soon after.
func (c *Conn) exitCause() error {
	if c.cmd == nil {
		return fmt.Errorf("server output ended: %w", io.EOF)
	}
	select {
	case <-c.exited:
		if c.waitErr != nil {
			return fmt.Errorf("server output ended: %w (server %v)", io.EOF, c.waitErr)
		}
		return fmt.Errorf("server output ended: %w (server exited with status 0)", io.EOF)
	case <-time.After(outputGrace):
		return fmt.Errorf("server output ended: %w (server still running)", io.EOF)
	}
}

// dispatch handles one frame; an error ends the connection.
func (c *Conn) dispatch(body []byte) error {
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		return fmt.Errorf("malformed frame from the server: %w", err)
	}
	if m.Method == "workspace/applyEdit" && len(m.ID) > 0 && c.opts.OnApplyEdit != nil {
		go c.answerApplyEdit(m.ID, m.Params)
		return nil
	}
	if m.Method != "" {
		c.notification(m.Method, m.Params)
		return nil
	}
	id, err := strconv.ParseInt(string(m.ID), 10, 64)
	if err != nil {
		if m.Error != nil && string(m.ID) == "null" {
			return fmt.Errorf("the server could not read a request: %w", m.Error)
		}
		return fmt.Errorf("reply with an id this client never sent: %s", m.ID)
	}
	c.mu.Lock()
	p := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if p == nil {
		return nil // the call gave up waiting (cancelWait)
	}
	if m.Error != nil {
		m.Error.setKind()
		p.reply <- reply{err: m.Error}
		return nil
	}
	if m.Result == nil {
		return fmt.Errorf("reply %d has neither result nor error", id)
	}
	p.reply <- reply{result: m.Result}
	return nil
}

// notification routes $/progress to its call's callback, else to
// Options.OnNotification.
func (c *Conn) notification(method string, params json.RawMessage) {
	if method == "$/progress" {
		var pp struct {
			Token json.RawMessage `json:"token"`
			Value json.RawMessage `json:"value"`
		}
		if json.Unmarshal(params, &pp) == nil {
			if id, err := strconv.ParseInt(string(pp.Token), 10, 64); err == nil {
				c.mu.Lock()
				p := c.pending[id]
				c.mu.Unlock()
				if p != nil && p.progress != nil {
					p.progress(pp.Value)
					return
				}
			}
		}
	}
	if c.opts.OnNotification != nil {
		c.opts.OnNotification(method, params)
	}
}
