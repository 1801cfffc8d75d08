package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/toolrpc/toolrpc/client"
	"github.com/toolrpc/toolrpc/limits"
)

// server is a toolrpc process driven like a host drives it, through package
// client: one stdio connection, $/progress notifications read and dropped.
type server struct {
	conn   *client.Conn
	cmd    *exec.Cmd
	stderr *tailBuffer
	// startup is process start → initialize reply.
	startup time.Duration
	// initialize is the initialize request → its reply.
	initialize time.Duration
}

// serverConfig says how to start a server.
type serverConfig struct {
	bin, root, dataDir string
	env                []string
	args               []string // the command line's flags (e.g. --sandbox off)
}

// startServer starts a server on root and initializes it.
func startServer(c serverConfig) (*server, error) {
	s := &server{stderr: &tailBuffer{max: 8 * limits.KB}}
	s.cmd = exec.Command(c.bin, c.args...)
	s.cmd.Dir = c.root
	s.cmd.Env = append(os.Environ(), c.env...)
	s.cmd.Stderr = s.stderr
	t0 := time.Now()
	conn, err := client.Start(s.cmd, client.Options{})
	if err != nil {
		return nil, fmt.Errorf("start server: %w", err)
	}
	s.conn = conn
	t1 := time.Now()
	_, err = conn.Initialize(context.Background(), &protocol.InitializeParams{
		ProcessID:             int32(os.Getpid()),
		RootURI:               protocol.DocumentURI(uri.File(c.root)),
		InitializationOptions: map[string]any{"dataDir": c.dataDir},
	})
	s.startup, s.initialize = time.Since(t0), time.Since(t1)
	if err != nil {
		conn.Kill()
		return nil, fmt.Errorf("initialize server on %s: %w (stderr: %s)", c.root, err, s.stderr)
	}
	return s, nil
}

// pid returns the server's process id.
func (s *server) pid() int { return s.cmd.Process.Pid }

// call makes one request and returns its result and the time from sending
// the request to having its reply. An error reply is a *client.Error.
func (s *server) call(method string, params any) (json.RawMessage, time.Duration, error) {
	return s.callContext(context.Background(), method, params)
}

// callContext is call with a context; cancelling it cancels the call.
func (s *server) callContext(ctx context.Context, method string, params any) (json.RawMessage, time.Duration, error) {
	var res json.RawMessage
	t0 := time.Now()
	err := s.conn.Call(ctx, method, params, &res)
	d := time.Since(t0)
	if err != nil {
		return nil, d, s.withStderr(err)
	}
	return res, d, nil
}

// withStderr adds the server's stderr to an error that ended the connection.
func (s *server) withStderr(err error) error {
	select {
	case <-s.conn.Done():
		return fmt.Errorf("%w (stderr: %s)", err, s.stderr)
	default:
		return err
	}
}

// close sends shutdown and exit and waits for the process; a server that
// does not exit in time is killed.
func (s *server) close() error {
	if err := s.conn.Close(); err != nil {
		return fmt.Errorf("%w (stderr: %s)", err, s.stderr)
	}
	return nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}
