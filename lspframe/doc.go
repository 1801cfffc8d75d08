// Package lspframe reads and writes LSP base-protocol frames
// ("Content-Length: N\r\n\r\n" followed by N bytes) so that a bad header
// never breaks the stream: the Reader reports it, consumes the offending
// input, and its next Read starts at the next frame.
//
// It only frames. What to do about a bad frame (answer it, drop the
// connection) is the caller's decision: the server (package rpc) answers
// with a JSON-RPC error and reads on; the client (package client) treats any
// error from the server's side as fatal.
//
// # Reading
//
// Header names are case-insensitive and headers other than Content-Length
// (Content-Type) are ignored. A line that is not a header is skipped, unless
// it contains "Content-Length:" (the rest of a body sent without a length,
// glued to the next header), in which case reading resynchronises on it.
// Stray blank lines between frames are skipped. A body longer than the
// Reader's limit is skipped in small reads, never allocated.
//
// Read returns io.EOF only at a clean end between frames, and an error
// wrapping io.ErrUnexpectedEOF when the input ends inside a frame.
package lspframe
