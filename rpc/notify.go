package rpc

import (
	"context"
	"encoding/json"
)

// Notifier is implemented by a Service that takes notifications beyond the
// lifecycle's (LSP's textDocument/didChange, SPEC §15). Notify runs in the
// read loop, in arrival order, before any request read after the
// notification starts: it must not block.
type Notifier interface {
	// Notify handles one notification that arrived after initialize.
	Notify(method string, params json.RawMessage)
}

// initParamsKey is the context key of the raw initialize params.
type initParamsKey struct{}

// InitializeParams returns the initialize params exactly as the client sent
// them, from the ctx given to Service.Initialize (nil elsewhere): members
// go.lsp.dev/protocol does not know (LSP 3.17's
// general.positionEncodings) are read from here.
func InitializeParams(ctx context.Context) json.RawMessage {
	b, _ := ctx.Value(initParamsKey{}).(json.RawMessage)
	return b
}
