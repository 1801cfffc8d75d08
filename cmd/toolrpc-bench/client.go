package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolrpc/toolrpc/limits"
)

// shutdownGrace is how long close waits for the server to exit after
// shutdown + exit before killing it.
var shutdownGrace = 30 * time.Second

// wireError is a JSON-RPC error reply.
type wireError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *wireError) Error() string { return fmt.Sprintf("error %d: %s", e.Code, e.Message) }

// kind returns data.code, or "".
func (e *wireError) kind() string {
	var d struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(e.Data, &d)
	return d.Code
}

// reply is the answer to one request, stamped when its frame was read.
type reply struct {
	at     time.Time
	result json.RawMessage
	err    *wireError
}

// server is a toolrpc process driven like a host drives it: one stdio
// connection, integer request ids, $/progress notifications read and dropped.
type server struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	wmu   sync.Mutex // serialises frame writes

	mu      sync.Mutex
	next    int64
	pending map[int64]chan reply
	readErr error
	done    chan struct{} // closed when the reader stops

	stderr *tailBuffer
	// startup is process start → initialize reply.
	startup time.Duration
}

// serverConfig says how to start a server.
type serverConfig struct {
	bin, root, dataDir string
	env                []string
}

// startServer starts a server on root and initializes it.
func startServer(c serverConfig) (*server, error) {
	s := &server{pending: map[int64]chan reply{}, done: make(chan struct{}), stderr: &tailBuffer{max: 8 * limits.KB}}
	s.cmd = exec.Command(c.bin)
	s.cmd.Dir = c.root
	s.cmd.Env = append(os.Environ(), c.env...)
	s.cmd.Stderr = s.stderr
	var err error
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("start server: %w", err)
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start server: %w", err)
	}
	t0 := time.Now()
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start server %s: %w", c.bin, err)
	}
	go s.readLoop(bufio.NewReaderSize(stdout, 64*limits.KB))
	params := map[string]any{
		"processId":             os.Getpid(),
		"rootUri":               "file://" + c.root,
		"capabilities":          map[string]any{},
		"initializationOptions": map[string]any{"dataDir": c.dataDir},
	}
	_, ch, _, err := s.send("initialize", params)
	if err == nil {
		var r reply
		if r, err = s.await(ch); err == nil && r.err != nil {
			err = r.err
		}
		s.startup = r.at.Sub(t0)
	}
	if err == nil {
		err = s.notify("initialized", map[string]any{})
	}
	if err != nil {
		s.kill()
		return nil, fmt.Errorf("initialize server on %s: %w (stderr: %s)", c.root, err, s.stderr)
	}
	return s, nil
}

// pid returns the server's process id.
func (s *server) pid() int { return s.cmd.Process.Pid }

// writeFrame writes one LSP frame holding body.
func writeFrame(w io.Writer, body []byte) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n", len(body))
	b.Write(body)
	_, err := w.Write(b.Bytes())
	return err
}

// readFrame reads one LSP frame and returns its body. Header names are
// case-insensitive; a frame without Content-Length, or with one above
// limits.MaxFrameBytes, is an error.
func readFrame(br *bufio.Reader) ([]byte, error) {
	n := -1
	for header := 0; ; header++ {
		if header > 32 {
			return nil, errors.New("read frame: too many header lines")
		}
		line, err := br.ReadString('\n')
		if err != nil {
			if err == io.EOF && line == "" && header == 0 {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("read frame header: %w", noEOF(err))
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("read frame header %q: no colon", line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			v, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || v < 0 || v > limits.MaxFrameBytes {
				return nil, fmt.Errorf("read frame header %q: bad length", line)
			}
			n = v
		}
	}
	if n < 0 {
		return nil, errors.New("read frame: no Content-Length")
	}
	// Grown as bytes arrive, so a lying Content-Length costs no allocation.
	var body bytes.Buffer
	if _, err := io.CopyN(&body, br, int64(n)); err != nil {
		return nil, fmt.Errorf("read frame body: %w", noEOF(err))
	}
	return body.Bytes(), nil
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// readLoop routes replies to their waiters until the server's stdout ends.
func (s *server) readLoop(br *bufio.Reader) {
	var err error
	for {
		var body []byte
		if body, err = readFrame(br); err != nil {
			break
		}
		at := time.Now()
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  *wireError      `json:"error"`
		}
		if err = json.Unmarshal(body, &m); err != nil {
			err = fmt.Errorf("decode frame: %w", err)
			break
		}
		if m.Method != "" {
			continue // $/progress: read, as a host would, and dropped
		}
		id, perr := strconv.ParseInt(string(m.ID), 10, 64)
		s.mu.Lock()
		ch := s.pending[id]
		delete(s.pending, id)
		s.mu.Unlock()
		if perr == nil && ch != nil {
			ch <- reply{at: at, result: m.Result, err: m.Error}
		}
	}
	s.mu.Lock()
	s.readErr = err
	s.mu.Unlock()
	close(s.done)
}

// send writes a request and returns its id, the channel its reply arrives
// on, and the moment just before the frame was written.
func (s *server) send(method string, params any) (int64, <-chan reply, time.Time, error) {
	if params == nil {
		params = map[string]any{}
	}
	s.mu.Lock()
	s.next++
	id := s.next
	ch := make(chan reply, 1)
	s.pending[id] = ch
	s.mu.Unlock()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return 0, nil, time.Time{}, fmt.Errorf("encode %s: %w", method, err)
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	t0 := time.Now()
	if err := writeFrame(s.stdin, body); err != nil {
		return 0, nil, t0, fmt.Errorf("send %s: %w", method, err)
	}
	return id, ch, t0, nil
}

// notify writes a notification.
func (s *server) notify(method string, params any) error {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		return fmt.Errorf("encode %s: %w", method, err)
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := writeFrame(s.stdin, body); err != nil {
		return fmt.Errorf("send %s: %w", method, err)
	}
	return nil
}

// await waits for the reply on ch, or fails when the server's stdout ends.
func (s *server) await(ch <-chan reply) (reply, error) {
	select {
	case r := <-ch:
		return r, nil
	case <-s.done:
		select {
		case r := <-ch:
			return r, nil
		default:
		}
		s.mu.Lock()
		err := s.readErr
		s.mu.Unlock()
		return reply{}, fmt.Errorf("server output ended: %v (stderr: %s)", err, s.stderr)
	}
}

// call makes one request and returns its result and the time from writing
// the request to reading the reply. An error reply is returned as
// *wireError.
func (s *server) call(method string, params any) (json.RawMessage, time.Duration, error) {
	_, ch, t0, err := s.send(method, params)
	if err != nil {
		return nil, 0, err
	}
	r, err := s.await(ch)
	if err != nil {
		return nil, 0, err
	}
	d := r.at.Sub(t0)
	if r.err != nil {
		return nil, d, r.err
	}
	return r.result, d, nil
}

// close sends shutdown and exit and waits for the process; a server that
// does not exit within shutdownGrace is killed.
func (s *server) close() error {
	var err error
	if _, ch, _, serr := s.send("shutdown", nil); serr == nil {
		select {
		case <-ch:
		case <-s.done:
		case <-time.After(shutdownGrace):
			err = errors.New("shutdown: no reply")
		}
		_ = s.notify("exit", nil)
	}
	s.stdin.Close()
	waited := make(chan error, 1)
	go func() { waited <- s.cmd.Wait() }()
	select {
	case werr := <-waited:
		if err == nil && werr != nil {
			err = fmt.Errorf("server exit: %w (stderr: %s)", werr, s.stderr)
		}
	case <-time.After(shutdownGrace):
		s.cmd.Process.Kill()
		<-waited
		err = fmt.Errorf("server did not exit within %v of exit; killed", shutdownGrace)
	}
	return err
}

// kill ends the server without the shutdown handshake.
func (s *server) kill() {
	s.stdin.Close()
	s.cmd.Process.Kill()
	s.cmd.Wait()
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
