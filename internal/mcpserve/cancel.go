package mcpserve

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cancelFilter wraps the stdio connection so that nothing is written for a
// request once its notifications/cancelled has been read: the go-sdk cancels
// the handler's context but still writes the handler's response, which MCP
// says a receiver should not send. It records the progress token of every
// tools/call in flight so the call's progress sender can ask whether the
// call was cancelled (see cancelled) before each notification.
type cancelFilter struct {
	inner mcp.Transport

	mu        sync.Mutex
	inFlight  map[jsonrpc.ID]string // request id -> progress token key ("" = none)
	cancelled map[jsonrpc.ID]bool   // cancelled requests still in flight
	tokens    map[string]bool       // progress token key -> its call was cancelled
}

func newCancelFilter(t mcp.Transport) *cancelFilter {
	return &cancelFilter{
		inner:     t,
		inFlight:  map[jsonrpc.ID]string{},
		cancelled: map[jsonrpc.ID]bool{},
		tokens:    map[string]bool{},
	}
}

// Connect implements mcp.Transport.
func (f *cancelFilter) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := f.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &filteredConn{Connection: c, f: f}, nil
}

// tokenKey is the map key of a progress token: its JSON text.
func tokenKey(token any) string {
	if token == nil {
		return ""
	}
	b, err := json.Marshal(token)
	if err != nil {
		return ""
	}
	return string(b)
}

// cancelledToken reports whether the call holding progress token key was cancelled.
func (f *cancelFilter) cancelledToken(key string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return key != "" && f.tokens[key]
}

// read records what the filter needs from one incoming message.
func (f *cancelFilter) read(req *jsonrpc.Request) {
	switch {
	case req.IsCall():
		var p struct {
			Meta struct {
				ProgressToken any `json:"progressToken"`
			} `json:"_meta"`
		}
		if req.Method == "tools/call" {
			_ = json.Unmarshal(req.Params, &p)
		}
		f.mu.Lock()
		f.inFlight[req.ID] = tokenKey(p.Meta.ProgressToken)
		f.mu.Unlock()
	case req.Method == "notifications/cancelled":
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) != nil {
			return
		}
		id, err := jsonrpc.MakeID(p.RequestID)
		if err != nil {
			return
		}
		f.mu.Lock()
		if key, ok := f.inFlight[id]; ok {
			f.cancelled[id] = true
			if key != "" {
				f.tokens[key] = true
			}
		}
		f.mu.Unlock()
	}
}

// drop reports whether the response resp must not be written, and forgets
// its request.
func (f *cancelFilter) drop(resp *jsonrpc.Response) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	key, ok := f.inFlight[resp.ID]
	if !ok {
		return false
	}
	drop := f.cancelled[resp.ID]
	delete(f.inFlight, resp.ID)
	delete(f.cancelled, resp.ID)
	if key != "" {
		delete(f.tokens, key)
	}
	return drop
}

// filteredConn is the connection side of cancelFilter.
type filteredConn struct {
	mcp.Connection
	f *cancelFilter
}

// Read implements mcp.Connection.
func (c *filteredConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil {
		c.f.read(req)
	}
	return msg, err
}

// Write implements mcp.Connection.
func (c *filteredConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok && c.f.drop(resp) {
		return nil
	}
	return c.Connection.Write(ctx, msg)
}
