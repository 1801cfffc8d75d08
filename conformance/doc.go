// Package conformance is a black-box suite for the toolrpc contract
// (SPEC.md): every test spawns a real server binary and speaks LSP-framed
// JSON-RPC to it over stdio, so it can run against any implementation.
//
// Run it against the project (the test binary, run under the name toolrpc,
// is the server: package cli, what cmd/toolrpc runs):
//
//	go test ./conformance
//
// or against another binary that claims the contract:
//
//	go test ./conformance -bin /path/to/server    (or TOOLRPC_BIN=/path/to/server)
package conformance
