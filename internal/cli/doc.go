// Package cli is the toolrpc command: it parses the flags, then either
// serves JSON-RPC on stdio until exit (package rpc over the methods
// toolbox), serves MCP on stdio ("mcp", package mcpserve), or makes one
// call and prints its result. It is importable so
// that a test binary re-executed as the server runs exactly what
// cmd/toolrpc runs.
//
// Usage:
//
//	toolrpc [--root DIR] [--data-dir DIR] [--session ID] [--log-file FILE]
//	toolrpc call METHOD [JSON | -]   (- reads the params from stdin)
//	toolrpc mcp [--root DIR ...] [--data-dir DIR] [--session ID] [--log-file FILE]
//	toolrpc --version
package cli
