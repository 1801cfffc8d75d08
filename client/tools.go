package client

import (
	"context"
	"encoding/json"

	"github.com/toolrpc/toolrpc/wire"
)

// The tools, typed: each method sends its tool's wire params and decodes the
// reply into its wire result, the types the server encodes from. A method per
// tool, rather than a generic Call[T], ties each method name to its result
// type, so a caller cannot decode tools/read's reply as a BashResult.

// Read calls tools/read (SPEC §4).
func (c *Conn) Read(ctx context.Context, p wire.ReadParams, opts ...CallOption) (*wire.ReadResult, error) {
	return call[wire.ReadResult](ctx, c, "tools/read", p, opts)
}

// Grep calls tools/grep (SPEC §5); the result's member that is set follows
// p.OutputMode.
func (c *Conn) Grep(ctx context.Context, p wire.GrepParams, opts ...CallOption) (*wire.GrepResult, error) {
	return call[wire.GrepResult](ctx, c, "tools/grep", p, opts)
}

// Glob calls tools/glob (SPEC §5).
func (c *Conn) Glob(ctx context.Context, p wire.GlobParams, opts ...CallOption) (*wire.GlobResult, error) {
	return call[wire.GlobResult](ctx, c, "tools/glob", p, opts)
}

// Bash calls tools/bash (SPEC §6). A TIMEOUT or CANCELLED error carries the
// partial result: see (*Error).Partial.
func (c *Conn) Bash(ctx context.Context, p wire.BashParams, opts ...CallOption) (*wire.BashResult, error) {
	return call[wire.BashResult](ctx, c, "tools/bash", p, opts)
}

// Edit calls tools/edit (SPEC §8).
func (c *Conn) Edit(ctx context.Context, p wire.EditParams, opts ...CallOption) (*wire.EditResult, error) {
	return call[wire.EditResult](ctx, c, "tools/edit", p, opts)
}

// Write calls tools/write (SPEC §8).
func (c *Conn) Write(ctx context.Context, p wire.WriteParams, opts ...CallOption) (*wire.WriteResult, error) {
	return call[wire.WriteResult](ctx, c, "tools/write", p, opts)
}

// call sends method with params and decodes its result as a T.
func call[T any](ctx context.Context, c *Conn, method string, params any, opts []CallOption) (*T, error) {
	var res T
	if err := c.Call(ctx, method, params, &res, opts...); err != nil {
		return nil, err
	}
	return &res, nil
}

// Partial returns the partial BashResult a TIMEOUT or CANCELLED tools/bash
// error carries in its data, and whether it holds one.
func (e *Error) Partial() (*wire.BashResult, bool) {
	if e.Kind != wire.Timeout && e.Kind != wire.Cancelled || len(e.Data) == 0 {
		return nil, false
	}
	var r wire.BashResult
	if json.Unmarshal(e.Data, &r) != nil {
		return nil, false
	}
	return &r, true
}
