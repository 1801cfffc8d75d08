// Package conformance is a black-box suite for the toolrpc contract,
// docs/protocol.md (SPEC §N in this package means its section §N): every
// test spawns a real server binary and speaks LSP-framed JSON-RPC to it over
// stdio, so it can run against any implementation. Each test's doc comment
// names the section it checks (TestEveryTestNamesItsSection).
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
