// Package methods is the thin adapter between JSON-RPC and toolrpc's engines:
// each tool's file decodes its params (the types of package wire) and
// validates them (a bad one is INVALID_ARGUMENT, never clamped), calls one
// engine — search.Grep, page, lineedit, shell.Run, one process.Table method
// per process tool — and answers the engine's result, bounded by package
// limits so the caller learns what was cut and how to get the rest, or its
// error as a SPEC §10 kind, mapped in one place per tool (bashCall's switch,
// processResult).
//
// All lists the methods; the Toolbox serves them once initialize has built a
// Session. Each method's params, result and errors are specified in the
// section of docs/protocol.md its comments name (SPEC §N is section §N).
//
// Its API is toolrpc's own: it serves the server and may change between
// minor versions. The stable surfaces are the wire protocol (docs/protocol.md)
// and the packages client, wire and lspframe.
package methods
