// Command toolrpc-chaos runs a fault campaign against live toolrpc servers:
// several host sessions at once (LSP, LSP with workDoneProgress, MCP, and
// MCP hosts that write their frames and close stdin at once), each
// a random stream of calls to every tool with valid and hostile params,
// random cancels, paging and waits, while faults are injected at random
// moments — the server or its guardian SIGKILLed, the server stopped, the
// host that stops reading, closes stdin or dies, the data dir full or
// read-only, the workspace mutated or deleted, a low fd limit. Invariants
// are checked during and after every session: no survivor, no hang, results
// that keep the contract, nothing half-written, a restart that answers the
// same, bounded resources, a clean log. Every violation is saved with the
// seed and the session's call log, which --replay runs again.
//
// It runs on Linux (it reads /proc, mounts a tmpfs and bind-mounts it read-only over itself);
// elsewhere it says so and exits. README.md tells how to run it.
//
// Usage:
//
//	toolrpc-chaos [--seed N] [--duration D] [--slots N] [--bin PATH] [--out DIR]
//	toolrpc-chaos --replay violation-N.json [--bin PATH]
package main
