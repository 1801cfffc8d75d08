package cli

import (
	"context"
	"flag"
	"fmt"
	"github.com/toolrpc/toolrpc/methods"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/toolrpc/toolrpc/internal/mcpserve"
)

// rootFlags collects repeated --root flags.
type rootFlags []string

func (r *rootFlags) String() string     { return strings.Join(*r, ",") }
func (r *rootFlags) Set(v string) error { *r = append(*r, v); return nil }

// runMCP serves MCP over stdio (newline-delimited JSON-RPC) until stdin ends.
func runMCP(args []string, stdin io.ReadCloser, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("toolrpc mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var roots rootFlags
	fs.Var(&roots, "root", "workspace root, repeatable; the first resolves relative paths (default: the client's roots, else the working directory)")
	dataDir := fs.String("data-dir", "", "data directory (default: $XDG_STATE_HOME/toolrpc or ~/.local/state/toolrpc)")
	session := fs.String("session", "", "session id (default: random)")
	logFile := fs.String("log-file", "", "write logs to this file instead of stderr")
	toolset := fs.String("toolset", "", toolsetUsage)
	sandboxed := addSandboxFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: toolrpc mcp [--root DIR ...] [--data-dir DIR] [--session ID] [--log-file FILE] [--toolset FAMILIES] [--sandbox MODE] [--network on|off] [--allow-write DIR ...] [--deny-read PATH ...]\n")
		fmt.Fprintf(stderr, "serves the tools as an MCP server over stdio\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	ts, err := methods.ParseToolset(*toolset)
	if err != nil {
		fmt.Fprintf(stderr, "toolrpc mcp: --%v\n", err)
		return 2
	}
	logger, closeLog, ok := setupLog(stderr, "toolrpc mcp", *logFile, true)
	if !ok {
		return 2
	}
	defer closeLog()

	// As in LSP mode: once the host is gone a write must fail with EPIPE, not
	// kill the server before it has killed the running calls' trees.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer stop()
	if stdout == os.Stdout {
		stdout = hostStdout() // the ending's writes are bounded, as in LSP mode
	}
	cfg := mcpserve.Config{Roots: roots, DataDir: *dataDir, SessionID: *session, Version: version, Logger: logger,
		Sandbox: sandboxed.policy(), Toolset: ts}
	if err := mcpserve.Serve(ctx, stdin, stdout, cfg); err != nil {
		logger.Printf("%v", err)
		return 1
	}
	return 0
}
