package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
)

// ErrCallDone is returned by Progress once the call's reply has been sent.
var ErrCallDone = errors.New("rpc: call already replied")

// Handler runs one request. The returned value is marshalled as the result; a
// returned error is converted with AsError. A handler must return only after
// every Progress call it started has returned: notifications sent after the
// handler returns are dropped, never written after the reply.
type Handler func(ctx context.Context, call *Call) (any, error)

// Call is one request as a handler sees it.
type Call struct {
	// Method is the request's method name.
	Method string
	// ID is the request id exactly as the client sent it (a JSON string or number).
	ID json.RawMessage
	// Params is the raw params member ("null" when absent).
	Params json.RawMessage

	mu     sync.Mutex
	done   bool
	notify func(method string, params any) error
	after  []func()
}

// NewCall returns a Call whose notifications go to notify; tests of method
// handlers use it to run a handler without a connection.
func NewCall(method string, id, params json.RawMessage, notify func(method string, params any) error) *Call {
	if len(params) == 0 {
		params = json.RawMessage("null")
	}
	return &Call{Method: method, ID: id, Params: params, notify: notify}
}

// progressParams is LSP ProgressParams with a raw token, so a string or
// numeric token is echoed exactly.
type progressParams struct {
	Token json.RawMessage `json:"token"`
	Value any             `json:"value"`
}

// Progress sends a $/progress notification for this call. It is synchronous:
// when it returns the notification is written. token is the JSON of the
// progress token (the workDoneToken, or the request id).
func (c *Call) Progress(token json.RawMessage, value any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return ErrCallDone
	}
	if c.notify == nil {
		return nil
	}
	return c.notify("$/progress", progressParams{Token: token, Value: value})
}

// finish marks the call replied-to; later Progress calls fail with ErrCallDone.
// It waits for a Progress call in flight to complete.
func (c *Call) finish() {
	c.mu.Lock()
	c.done = true
	c.mu.Unlock()
}

// AfterReply registers f to run once the call's reply has been written
// (the server calls Replied then). Work the reply must not wait for, and
// must not race either, goes there.
func (c *Call) AfterReply(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.after = append(c.after, f)
}

// Replied runs, once, the functions AfterReply registered. The server calls
// it after writing the reply; a caller that runs a handler itself (the MCP
// face, tests) calls it when the handler's answer is delivered.
func (c *Call) Replied() {
	c.mu.Lock()
	after := c.after
	c.after = nil
	c.mu.Unlock()
	for _, f := range after {
		f()
	}
}

// Decode unmarshals the params into v, rejecting wrong types and unknown
// fields (SPEC §10) with an INVALID_ARGUMENT error that names the problem.
func (c *Call) Decode(v any) error {
	if len(c.Params) == 0 || string(c.Params) == "null" {
		return Errorf(InvalidArgument, "%s: params are required", c.Method)
	}
	dec := json.NewDecoder(bytes.NewReader(c.Params))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return Errorf(InvalidArgument, "%s: bad params: %v", c.Method, err)
	}
	return nil
}
