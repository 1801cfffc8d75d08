// Package rpc serves toolrpc over LSP-framed JSON-RPC 2.0 so that a malformed
// frame is answered, never fatal, and no notification of a call is written
// after that call's reply.
//
// # Framing
//
// Frames are "Content-Length: N\r\n\r\n" plus N bytes of UTF-8 JSON. Header
// names are case-insensitive; a frame larger than limits.MaxFrameBytes is
// answered with -32600 and its body skipped without being allocated, after
// which the stream resynchronises on the next header. Each body is decoded
// once, by the frameStream; sourcegraph/jsonrpc2 runs the read loop (and
// DisconnectNotify) on a constant stand-in, and the server writes every
// frame itself. An id is kept as its compact JSON text and echoed verbatim.
//
// # Lifecycle
//
// initialize must come first (-32002 otherwise); shutdown cancels running calls
// and releases the session; exit ends the process (0 after shutdown, else 1);
// EOF on the input behaves like shutdown followed by exit. Once the session is
// ending (exit, end of input, host death, a done context), writes to the host
// get a deadline (limits.EndingWriteGrace) and the exit waits at most
// limits.ExitBackstop for the calls' replies, so a host that stopped reading
// cannot keep the server alive.
//
// # Cancellation
//
// A call starts only once every message that had arrived with its request has
// been handled, so a $/cancelRequest written together with its request always
// wins. Numerically equal ids (7 and 7.0) are one id for cancellation and
// duplicate detection.
//
// # Requests of the server's own
//
// A Peer (PeerFrom the ctx of Initialize or of a handler) sends the
// client requests of the server's own, with string ids "toolrpc/N", and
// notifications outside any call. A response is matched to its request by
// the string its id decodes to; a response no request waits for is
// dropped, never answered.
//
// # Errors
//
// A handler's error becomes the wire error through AsError: an *Error in its
// chain keeps its code, a cancelled context is CANCELLED (the one place that
// mapping is made), anything else IO_ERROR. Errorf's %w keeps the cause for
// errors.Is and errors.As. Frames are written without HTML escaping, so a "<"
// in a result is "<" on the wire.
//
// SPEC §N, here and throughout the repository, is section §N of
// docs/protocol.md, the protocol this package serves.
//
// Its API is toolrpc's own: it serves the server and may change between
// minor versions. The stable surfaces are the wire protocol (docs/protocol.md)
// and the packages client, wire and lspframe.
package rpc
