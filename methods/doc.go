// Package methods is the thin adapter between JSON-RPC and toolrpc's engines:
// each tool's file decodes and validates its params (a bad one is
// INVALID_ARGUMENT, never clamped), calls one engine, and shapes a result
// that package limits has bounded, so the caller learns what was cut and how
// to get the rest.
//
// All lists the methods; the Toolbox serves them once initialize has built a
// Session. Each method's params, result and errors are specified in the
// section of docs/protocol.md its comments name (SPEC §N is section §N).
package methods
