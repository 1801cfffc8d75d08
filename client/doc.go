// Package client drives a toolrpc server from a Go host so that every call
// ends: with its result, with a typed *Error, or with the connection's
// failure — never a hang on a server that died, went silent, or wrote
// something that is not a frame.
//
// # Connecting
//
// Start spawns a server binary and speaks to it over its stdin and stdout;
// New attaches to a server already reachable through a reader and a writer
// (pipes to an in-process rpc.Serve, an ssh session). Initialize sends
// initialize and initialized. Close sends shutdown and exit and waits for
// the process, killing it if it does not exit in time.
//
// # Calls
//
// Read, Grep, Glob, Bash, Edit and Write call one tool each with its params
// and return its result, both typed by package wire (the types the server
// encodes from); Call sends any method with any params. Call may be used from many goroutines at once; replies are matched to
// calls by id, in whatever order the server sends them. A call made with
// WithProgress gets the $/progress values the server sends for it (token =
// the request id, SPEC §6.4), in order, all of them before Call returns.
//
// Cancelling a call's context sends $/cancelRequest and waits for the
// server's reply: a cancelled tools/bash returns an *Error with code
// -32800, data.code CANCELLED and the partial result in Data, and the error
// wraps the context's error.
//
// # Sandbox
//
// Options.Sandbox is the sandbox policy (SPEC §14) Initialize asks for, sent
// as initializationOptions.sandbox; SandboxState reads the policy in force
// from initialize's result, and SandboxUpdate replaces it from the next call
// on. A denied file-tool path is an *Error of Kind SANDBOX_DENIED, an
// explicit mode the machine cannot enforce SANDBOX_UNAVAILABLE.
//
// # Documents
//
// A host that holds buffers but is not an LSP client shows them to the
// tools (SPEC §15) with DidOpen, DidChange, DidClose and DidSave, and
// applies the server's edits of them in Options.OnApplyEdit, which sends the
// DidChange carrying the edit before it answers.
//
// # Errors
//
// An error reply is an *Error carrying the JSON-RPC code, the SPEC §10
// data.code as Kind, and the raw data. A call that cannot complete because
// the connection ended (the server exited, closed its output, or sent a
// malformed frame) returns an error wrapping ErrClosed and the cause.
package client
