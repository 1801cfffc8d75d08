package client

import (
	"context"

	"github.com/toolrpc/toolrpc/wire"
)

// Typed wrappers of the process tools (SPEC §13). Their params and results
// are package wire's types, as the server decodes and writes them: pointer
// members left nil are omitted (wire.Ptr makes one).

// ProcessWait says when a process call answers (SPEC §13 Wait).
type ProcessWait = wire.ProcessWait

// ProcessStartParams are the params of tools/process/start.
type ProcessStartParams = wire.ProcessStartParams

// ProcessReadParams are the params of tools/process/read.
type ProcessReadParams = wire.ProcessReadParams

// ProcessWriteParams are the params of tools/process/write.
type ProcessWriteParams = wire.ProcessWriteParams

// ProcessSignalParams are the params of tools/process/signal.
type ProcessSignalParams = wire.ProcessSignalParams

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
