package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/methods"
	"github.com/toolrpc/toolrpc/procgroup"
	"github.com/toolrpc/toolrpc/rpc"
)

// Main runs the toolrpc command with args (without the program name) and
// returns its exit status: it serves JSON-RPC on stdin and stdout until
// exit or EOF, or with "call" makes one call. It is the whole of
// cmd/toolrpc's main, and of a test binary re-executed as the server.
func Main(args []string, stdin io.ReadCloser, stdout, stderr io.Writer) int {
	// GOMAXPROCS stays one per core, as search runs one worker per core: a
	// spare P (kept until issue 35 for the read loop's sake) let a third
	// thread contend for two cores, and made a fresh tree's first grep 8%
	// slower on them; the scheduler's preemption keeps the read loop
	// answering while the workers run.
	raiseShellLevel()
	// Garbage, not live data, is what would make 64 output-heavy calls cost
	// hundreds of MB. An explicit GOMEMLIMIT wins.
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(limits.SoftMemoryBytes)
	}
	if len(args) > 0 && args[0] == "mcp" {
		return runMCP(args[1:], stdin, stdout, stderr)
	}
	fs := flag.NewFlagSet("toolrpc", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", "", "workspace root when initialize names none (default: the working directory)")
	dataDir := fs.String("data-dir", "", "data directory (default: $XDG_STATE_HOME/toolrpc or ~/.local/state/toolrpc)")
	session := fs.String("session", "", "session id when initialize names none (default: random)")
	logFile := fs.String("log-file", "", "write logs to this file instead of stderr")
	showVersion := fs.Bool("version", false, "print the version and exit")
	toolset := fs.String("toolset", "", toolsetUsage)
	sandboxed := addSandboxFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: toolrpc [flags]            serve JSON-RPC on stdio\n")
		fmt.Fprintf(stderr, "       toolrpc [flags] call METHOD [JSON]   make one call and print the result\n")
		fmt.Fprintf(stderr, "       toolrpc mcp [--root DIR ...] [--data-dir DIR] [--session ID]   serve MCP on stdio\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *showVersion {
		fmt.Fprintln(stdout, versionLine())
		return 0
	}
	logger, closeLog, ok := setupLog(stderr, "toolrpc", *logFile, fs.NArg() == 0)
	if !ok {
		return 2
	}
	defer closeLog()
	ts, err := methods.ParseToolset(*toolset)
	if err != nil {
		fmt.Fprintf(stderr, "toolrpc: --%v\n", err)
		return 2
	}
	cfg := methods.Config{Root: *root, DataDir: *dataDir, SessionID: *session, Version: version, Logf: logger.Printf,
		Sandbox: sandboxed.policy(), Toolset: ts}

	if fs.NArg() > 0 {
		if fs.Arg(0) != "call" || fs.NArg() < 2 || fs.NArg() > 3 {
			fs.Usage()
			return 2
		}
		params := "{}"
		if fs.NArg() == 3 {
			params = fs.Arg(2)
		}
		if params == "-" {
			b, err := io.ReadAll(stdin)
			if err != nil {
				fmt.Fprintf(stderr, "toolrpc call: read params: %v\n", err)
				return 2
			}
			params = string(b)
		}
		return callOnce(cfg, fs.Arg(1), params, stdout, stderr)
	}

	// Once the host is gone, a write to stdout or stderr must fail with EPIPE
	// rather than kill the server (Go's default for fds 1 and 2) before it
	// has killed the running calls' trees. Notify, not Ignore: an ignored
	// signal would stay ignored in the commands tools/bash runs.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer stop()
	if stdout == os.Stdout {
		stdout = hostStdout()
	}
	// Before the first call: the guardian that kills the calls' trees if this
	// server is SIGKILLed, and the sweep of what dead servers left running.
	procgroup.Guard()
	return rpc.Serve(ctx, stdin, stdout, methods.NewToolbox(cfg), rpc.Options{Logf: logger.Printf})
}

// logFlushWait bounds how long exit waits for queued log lines to reach stderr.
const logFlushWait = 200 * time.Millisecond

// setupLog returns the server's logger and points the standard logger at --log-file, or at stderr with the
// given prefix; while serving, stderr is written through a queue, so a host
// that stops reading stderr cannot block the server. It reports false, after
// saying why on stderr, when the log file cannot be opened; the returned
// function flushes and closes what it opened.
func setupLog(stderr io.Writer, prefix, logFile string, serving bool) (*log.Logger, func(), bool) {
	logger := log.New(stderr, prefix+": ", log.LstdFlags|log.Lmicroseconds)
	closeLog := func() {}
	if logFile != "" {
		f, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", prefix, err)
			return nil, nil, false
		}
		logger.SetOutput(f)
		closeLog = func() { f.Close() }
	} else if f, ok := stderr.(*os.File); ok && serving {
		logQueue := newQueuedWriter(f)
		logger.SetOutput(logQueue)
		closeLog = func() { logQueue.flush(logFlushWait) }
	}
	// Packages that log through the standard logger write where --log-file says.
	log.SetOutput(logger.Writer())
	log.SetFlags(logger.Flags())
	log.SetPrefix(logger.Prefix())
	return logger, closeLog, true
}

// toolsetUsage describes --toolset (SPEC §16).
const toolsetUsage = "tool families tools/list offers: toolrpc (default), anthropic, openai, gemini, or a comma-separated list (initializationOptions.toolset overrides it)"
