package client

import (
	"context"

	"github.com/toolrpc/toolrpc/wire"
)

// Typed wrappers of the process tools (SPEC §13). The params mirror the wire
// shapes with plain values: fields left zero are omitted.

// ProcessWait says when a process call answers (SPEC §13 Wait).
type ProcessWait struct {
	Until     []string `json:"until,omitempty"` // exit, input, idle, pattern, port
	Pattern   string   `json:"pattern,omitempty"`
	IdleMs    int      `json:"idleMs,omitempty"`
	TimeoutMs *int     `json:"timeoutMs,omitempty"` // nil: the default; 0: answer at once
}

// ProcessStartParams are the params of tools/process/start.
type ProcessStartParams struct {
	Command string            `json:"command"`
	Cwd     string            `json:"cwd,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Mode    string            `json:"mode,omitempty"` // "pipe" (default) or "pty"
	Cols    int               `json:"cols,omitempty"`
	Rows    int               `json:"rows,omitempty"`
	Label   string            `json:"label,omitempty"`
	Wait    *ProcessWait      `json:"wait,omitempty"`
}

// ProcessReadParams are the params of tools/process/read.
type ProcessReadParams struct {
	ID        string       `json:"id"`
	Since     *int64       `json:"since,omitempty"`
	TailLines int          `json:"tailLines,omitempty"`
	Wait      *ProcessWait `json:"wait,omitempty"`
}

// ProcessWriteParams are the params of tools/process/write.
type ProcessWriteParams struct {
	ID   string       `json:"id"`
	Data string       `json:"data,omitempty"`
	Keys []string     `json:"keys,omitempty"`
	EOF  bool         `json:"eof,omitempty"`
	Wait *ProcessWait `json:"wait,omitempty"`
}

// ProcessSignalParams are the params of tools/process/signal.
type ProcessSignalParams struct {
	ID      string       `json:"id"`
	Signal  string       `json:"signal"` // INT TERM HUP QUIT KILL TSTP CONT
	GraceMs *int         `json:"graceMs,omitempty"`
	Wait    *ProcessWait `json:"wait,omitempty"`
}

// ProcessReply is the result of start, read, write and signal: package
// wire's type, as the server writes it (its ProcessInfo, ProcessPrompt and
// ProcessCursor members are wire's too).
type ProcessReply = wire.ProcessReply

// ProcessInfo is one process's state (SPEC §13 ProcessInfo).
type ProcessInfo = wire.ProcessInfo

// ProcessList is the result of tools/process/list.
type ProcessList = wire.ProcessList

// ProcessStart calls tools/process/start. Cancelling ctx before it answers
// kills the process.
func (c *Conn) ProcessStart(ctx context.Context, p ProcessStartParams) (*ProcessReply, error) {
	var r ProcessReply
	return &r, c.Call(ctx, "tools/process/start", p, &r)
}

// ProcessRead calls tools/process/read. Cancelling ctx only ends the wait.
func (c *Conn) ProcessRead(ctx context.Context, p ProcessReadParams) (*ProcessReply, error) {
	var r ProcessReply
	return &r, c.Call(ctx, "tools/process/read", p, &r)
}

// ProcessWrite calls tools/process/write.
func (c *Conn) ProcessWrite(ctx context.Context, p ProcessWriteParams) (*ProcessReply, error) {
	var r ProcessReply
	return &r, c.Call(ctx, "tools/process/write", p, &r)
}

// ProcessSignal calls tools/process/signal.
func (c *Conn) ProcessSignal(ctx context.Context, p ProcessSignalParams) (*ProcessReply, error) {
	var r ProcessReply
	return &r, c.Call(ctx, "tools/process/signal", p, &r)
}

// ProcessList calls tools/process/list.
func (c *Conn) ProcessList(ctx context.Context) (*ProcessList, error) {
	var r ProcessList
	return &r, c.Call(ctx, "tools/process/list", struct{}{}, &r)
}
