package mcpserve

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// endHold wraps the stdio connection so that the end of input reaches the
// go-sdk only once every request read before it has been answered (SPEC
// §12). The go-sdk's connection, as soon as its reader returns an error,
// cancels every request in flight — even one whose handler has not begun,
// such as initialize queued behind nothing — and refuses every write, so a
// host that wrote its frames and closed stdin at once got no answer at all,
// initialize's result included (and the queued notifications/initialized
// then ran against a session never initialized).
//
// At the end of input onEnd runs once: it cancels the running tool calls,
// as shutdown does, so each still answers, with its CANCELLED result. The
// server's own requests to the client still unanswered (roots/list) are
// answered here with an error, since no answer can come any more. The end
// is passed on when the last request read has been answered, when a write
// fails (the host is gone or stopped reading past the ending's grace), or
// when the connection is closed.
type endHold struct {
	inner mcp.Transport
	onEnd func()
}

// Connect implements mcp.Transport.
func (h *endHold) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := h.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &holdConn{Connection: c, onEnd: h.onEnd, asked: map[jsonrpc.ID]bool{},
		changed: make(chan struct{}, 1), closed: make(chan struct{})}, nil
}

// errInputEnded answers a request of the server's that the client can no
// longer answer.
var errInputEnded = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the client's input ended before it answered"}

// holdConn is the connection side of endHold. Reads are serialised by the
// go-sdk; writes may come from any goroutine.
type holdConn struct {
	mcp.Connection
	onEnd func()

	mu       sync.Mutex
	pending  int                 // requests read and not yet answered
	asked    map[jsonrpc.ID]bool // the server's requests written and not yet answered
	endErr   error               // what ended the input; nil while it lasts
	writeErr error               // the first write that failed on its own: nothing more will be answered

	changed   chan struct{} // a token whenever pending, asked or writeErr change
	closeOnce sync.Once
	closed    chan struct{}
}

// Read implements mcp.Connection: the messages read, then, once the input
// has ended, answers to the server's unanswered requests, then the end.
func (c *holdConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	c.mu.Lock()
	ended := c.endErr != nil
	c.mu.Unlock()
	if !ended {
		msg, err := c.Connection.Read(ctx)
		switch {
		case err == nil:
			c.noteRead(msg)
			return msg, nil
		case ctx.Err() != nil:
			return nil, err
		}
		c.mu.Lock()
		c.endErr = err
		c.mu.Unlock()
		c.onEnd()
	}
	return c.drain(ctx)
}

// noteRead records a request to answer, or the answer to one of the
// server's.
func (c *holdConn) noteRead(msg jsonrpc.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.IsCall() {
			c.pending++
		}
	case *jsonrpc.Response:
		delete(c.asked, m.ID)
	}
}

// drain runs once the input has ended: it returns an error answer for each
// request of the server's the client left unanswered, then waits until no
// request read is left unanswered (or no answer can be written, or the
// connection is closed) and returns the error that ended the input.
func (c *holdConn) drain(ctx context.Context) (jsonrpc.Message, error) {
	for {
		c.mu.Lock()
		for id := range c.asked {
			delete(c.asked, id)
			c.mu.Unlock()
			return &jsonrpc.Response{ID: id, Error: errInputEnded}, nil
		}
		done := c.pending <= 0 || c.writeErr != nil
		end := c.endErr
		c.mu.Unlock()
		if done {
			return nil, end
		}
		select {
		case <-c.changed:
		case <-c.closed:
			return nil, end
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Write implements mcp.Connection, counting the answers written and the
// server's own requests.
func (c *holdConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	req, isReq := msg.(*jsonrpc.Request)
	asking := isReq && req.IsCall()
	if asking {
		c.mu.Lock()
		c.asked[req.ID] = true
		c.mu.Unlock()
	}
	err := c.Connection.Write(ctx, msg)
	c.mu.Lock()
	if _, ok := msg.(*jsonrpc.Response); ok {
		c.pending--
	}
	if asking && err != nil {
		delete(c.asked, req.ID)
	}
	if err != nil && ctx.Err() == nil && c.writeErr == nil {
		c.writeErr = err // as the go-sdk judges it: not the call's own cancel
	}
	c.mu.Unlock()
	c.signal()
	return err
}

// Close implements mcp.Connection; it ends a drain waiting for answers.
func (c *holdConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.Connection.Close()
}

// signal wakes a waiting drain.
func (c *holdConn) signal() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}
