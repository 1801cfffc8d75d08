// Package mcpserve serves the toolbox as MCP tools over stdio, with the
// guarantees of the LSP-framed server: the same engines bound every result,
// and a cancelled call's whole process tree is dead before anything else is
// sent for it — and nothing is sent for it after that.
//
// # Mapping
//
// Each tool method of package methods ("tools/read", …) is one MCP tool named
// without its prefix ("read"), with the same description and input schema.
// Its result is the LSP-mode result object as structuredContent, described by
// the tool's outputSchema, plus one text block written for a model. A tool
// failure is a result with isError: true whose structuredContent is the
// LSP-mode error object ({code, message, data: {code: <SPEC §10>, …}}), which
// the outputSchema also admits; protocol errors stay JSON-RPC errors.
//
// # Progress and cancel
//
// A call whose request carries _meta.progressToken gets its tools/bash
// output as notifications/progress: progress counts every notification of
// the call, message is the chunk's data, and _meta names the stream, its seq
// and skippedBytes. A heartbeat (no message) goes out whenever the call has
// been silent for limits.MCPHeartbeatInterval, and the result keeps
// limits.MCPProgressSettle after the last notification (typescript-sdk#2580).
// notifications/cancelled
// cancels the call (tools/bash kills the tree, SPEC §6.6); from the moment it
// is read, the call's progress and its response are dropped; its requestId
// names the request as a JSON value, as the go-sdk decodes ids.
//
// # End of input
//
// stdin EOF behaves as shutdown followed by exit, after what was read: every
// request read before it is answered, initialize first (see endHold). The
// calls still running are cancelled, killing their trees, and answer
// CANCELLED; Serve returns once every call has returned.
//
// # Build log
//
// The server declares the logging capability and logs a notifications/message
// (level info, logger "toolrpc") when a file table walk or a content index
// build begins and when it ends (SPEC §12). The go-sdk sends it only to a
// client that has set a log level of info or below.
package mcpserve
