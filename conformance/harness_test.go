package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/cli"
	"github.com/toolrpc/toolrpc/lspframe"
)

var binFlag = flag.String("bin", "", "server binary to test (default: $TOOLRPC_BIN, else this test binary run as the server)")

// bin is the path of the server under test, set by TestMain.
var bin string

// replyWait is a backstop so a broken server fails a test instead of hanging
// it; it is not a speed assertion.
var replyWait = 3 * time.Minute

// serverName is the name under which this test binary runs as the toolrpc
// server (package cli, exactly what cmd/toolrpc runs): without -bin,
// TestMain points bin at a symlink of that name to the test binary. The
// server is then built with the suite, race-built under -race, and the test
// cache sees its sources.
const serverName = "toolrpc"

func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == serverName {
		os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	if os.Getenv(launcherEnv) == "1" {
		os.Exit(hostLauncher(os.Args[1:]))
	}
	flag.Parse()
	bin = *binFlag
	if bin == "" {
		bin = os.Getenv("TOOLRPC_BIN")
	}
	cleanup := func() {}
	if bin != "" {
		// Stat it, so the test cache sees a rebuilt binary.
		if _, err := os.Stat(bin); err != nil {
			fmt.Fprintln(os.Stderr, "server under test:", err)
			os.Exit(2)
		}
	} else {
		dir, err := os.MkdirTemp("", "toolrpc-conformance-")
		if err == nil {
			cleanup = func() { os.RemoveAll(dir) }
			bin = filepath.Join(dir, serverName)
			var self string
			if self, err = os.Executable(); err == nil {
				err = os.Symlink(self, bin)
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "run the test binary as the server:", err)
			cleanup()
			os.Exit(2)
		}
	}
	if err := loadSchemas(); err != nil {
		fmt.Fprintln(os.Stderr, "tools/list of the server under test:", err)
		cleanup()
		os.Exit(2)
	}
	code := m.Run()
	stopWine()
	cleanup()
	os.Exit(code)
}

// rpcError is an error reply; Kind is its data.code.
type rpcError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
	Kind    string          `json:"-"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%d %s: %s", e.Code, e.Kind, e.Message) }

// frame is one message the server sent.
type frame struct {
	Raw    json.RawMessage
	Method string
	ID     json.RawMessage
	Params json.RawMessage
	Result json.RawMessage
	Error  *rpcError
}

// IsNotification reports whether the frame is a notification.
func (f *frame) IsNotification() bool { return f.Method != "" && f.ID == nil }

type options struct {
	root, dataDir, sessionID string
	external                 []string
	env                      []string
	args                     []string
	noInit                   bool
	initParams               func(map[string]any)
	hostAncestor             bool
	ctty                     *os.File // the server's controlling terminal, or nil
}

type option func(*options)

func withRoot(dir string) option                   { return func(o *options) { o.root = dir } }
func withDataDir(dir string) option                { return func(o *options) { o.dataDir = dir } }
func withSessionID(id string) option               { return func(o *options) { o.sessionID = id } }
func withExternalRoots(d ...string) option         { return func(o *options) { o.external = d } }
func withEnv(kv ...string) option                  { return func(o *options) { o.env = append(o.env, kv...) } }
func withArgs(a ...string) option                  { return func(o *options) { o.args = append(o.args, a...) } }
func withoutInitialize() option                    { return func(o *options) { o.noInit = true } }
func withInitParams(f func(map[string]any)) option { return func(o *options) { o.initParams = f } }

// withHostAncestor starts the server through hostLauncher and sends the
// pid of the shell between them as processId: a host that is an ancestor
// of the server, and that the test can kill while the pipes stay open.
func withHostAncestor() option { return func(o *options) { o.hostAncestor = true } }

// withCtty starts the server in a session of its own with tty (a pty's
// slave) as its controlling terminal, as a host run from a terminal has.
// Linux only (setCtty is set in escape_tty_linux_test.go).
func withCtty(tty *os.File) option { return func(o *options) { o.ctty = tty } }

// setCtty gives cmd tty as its controlling terminal (Linux only).
var setCtty func(cmd *exec.Cmd, tty *os.File)

// server is a running server under test.
type server struct {
	Root, DataDir, SessionID, ScratchDir string
	InitResult                           json.RawMessage

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *lockedBuffer
	nextID int

	mu       sync.Mutex
	got      []*frame
	waiters  map[string]chan *frame
	replies  map[string]*frame
	prog     map[string][]json.RawMessage
	readDone chan struct{}
	readErr  error             // why readLoop stopped, when not a clean EOF
	methods  map[string]string // request id (compact JSON) -> method, for the schema check
	schemas  schemaCheck
	exited   chan struct{}
	exitErr  error
	wine     bool // Windows mode: paths mapped (winepath_test.go)
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// start spawns the server, initializes it and registers a cleanup that shuts
// it down (shutdown, exit, wait).
func start(t testing.TB, opts ...option) *server {
	t.Helper()
	o := options{}
	for _, f := range opts {
		f(&o)
	}
	if o.root == "" {
		o.root = t.TempDir()
	}
	if o.dataDir == "" {
		o.dataDir = t.TempDir()
	}
	if o.sessionID == "" {
		o.sessionID = "s" + strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	s := &server{
		Root: o.root, DataDir: o.dataDir, SessionID: o.sessionID,
		stderr:   &lockedBuffer{},
		waiters:  map[string]chan *frame{},
		replies:  map[string]*frame{},
		prog:     map[string][]json.RawMessage{},
		methods:  map[string]string{},
		readDone: make(chan struct{}),
		exited:   make(chan struct{}),
		wine:     winePaths,
	}
	s.cmd = exec.Command(bin, o.args...)
	if o.hostAncestor {
		linuxOnly(t, "the host launcher is a child subreaper")
		s.cmd = exec.Command(os.Args[0], append([]string{bin}, o.args...)...)
	}
	s.cmd.Dir = o.root
	env := o.env
	if s.wine {
		env = wineEnv(env)
	}
	s.cmd.Env = append(append(os.Environ(), env...), transportEnvFor(env)...)
	if o.hostAncestor {
		s.cmd.Env = append(s.cmd.Env, launcherEnv+"=1")
	}
	s.cmd.Stderr = s.stderr
	if o.ctty != nil {
		setCtty(s.cmd, o.ctty)
	}
	if s.wine {
		// A Wine process inherits the Unix descriptors of the one that
		// started it, the server's stderr pipe included: a process the
		// server failed to kill would hold it open, and Wait with it.
		s.cmd.WaitDelay = wineWaitDelay
	}
	var err error
	s.stdin, err = s.cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := s.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, s.cmd.Start())
	go s.readLoop(stdout)
	go func() {
		<-s.readDone
		s.exitErr = s.cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		s.stop(t)
		<-s.readDone
		s.schemas.report(t)
		if strings.Contains(s.stderr.String(), "WARNING: DATA RACE") {
			t.Errorf("the server reported a data race:\n%s", tail(s.stderr.String(), 8000))
		}
		if t.Failed() {
			t.Logf("server stderr (tail):\n%s", tail(s.stderr.String(), 4000))
		}
	})
	if o.noInit {
		return s
	}
	params := map[string]any{
		"processId":    os.Getpid(),
		"rootUri":      "file://" + o.root,
		"capabilities": map[string]any{},
		"initializationOptions": map[string]any{
			"dataDir":   o.dataDir,
			"sessionId": o.sessionID,
		},
	}
	if o.hostAncestor {
		params["processId"] = waitHostPID(t, s)
	}
	if len(o.external) > 0 {
		params["initializationOptions"].(map[string]any)["externalRoots"] = o.external
	}
	if o.initParams != nil {
		o.initParams(params)
	}
	s.InitResult = s.call(t, "initialize", params)
	var init struct {
		ScratchDir string `json:"scratchDir"`
	}
	require.NoError(t, json.Unmarshal(s.InitResult, &init))
	s.ScratchDir = init.ScratchDir
	s.notify(t, "initialized", map[string]any{})
	return s
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// stop shuts the server down politely, then kills it if it does not exit.
func (s *server) stop(t testing.TB) {
	select {
	case <-s.exited:
		return
	default:
	}
	id := s.sendRaw("shutdown", nil)
	s.waitTimeout(id, 30*time.Second)
	s.writeMsg(map[string]any{"jsonrpc": "2.0", "method": "exit"})
	s.stdin.Close()
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-s.exited
	}
}

// readLoop parses every frame the server writes, with the framing the
// server and package client use. It stops at the first error; one that is
// not a clean end is kept for the failure message of a missing reply.
func (s *server) readLoop(r io.Reader) {
	defer close(s.readDone)
	fr := lspframe.NewReader(r, 1<<40) // the suite reads whatever the server sends
	for {
		body, err := fr.Read()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.mu.Lock()
				s.readErr = err
				s.mu.Unlock()
			}
			return
		}
		s.dispatch(body)
	}
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

func (s *server) dispatch(body []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if s.wine {
		body = fromWine(body)
	}
	f := &frame{Raw: append(json.RawMessage(nil), body...)}
	if err := json.Unmarshal(body, &m); err == nil {
		f.ID, f.Method, f.Params, f.Result, f.Error = m.ID, m.Method, m.Params, m.Result, m.Error
		if f.Error != nil && len(f.Error.Data) > 0 {
			var d struct {
				Code string `json:"code"`
			}
			_ = json.Unmarshal(f.Error.Data, &d)
			f.Error.Kind = d.Code
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, f)
	if f.Method == "$/progress" {
		var p struct {
			Token json.RawMessage `json:"token"`
			Value json.RawMessage `json:"value"`
		}
		if json.Unmarshal(f.Params, &p) == nil {
			k := compact(p.Token)
			s.prog[k] = append(s.prog[k], p.Value)
		}
		return
	}
	if f.Method == "" {
		k := compact(f.ID)
		s.checkSchema(s.methods[k], body)
		s.replies[k] = f
		if ch, ok := s.waiters[k]; ok {
			ch <- f
			delete(s.waiters, k)
		}
	}
}

func (s *server) writeMsg(msg any) {
	b, err := json.Marshal(msg)
	if err != nil {
		panic(err)
	}
	if m, ok := msg.(map[string]any); ok && m["id"] != nil {
		if method, ok := m["method"].(string); ok {
			id, _ := json.Marshal(m["id"])
			s.mu.Lock()
			s.methods[compact(id)] = method
			s.mu.Unlock()
		}
	}
	if s.wine {
		b = toWine(b)
	}
	s.writeRaw(rawFrame(string(b)))
}

// checkSchema holds the reply body to a request of method to the tool's
// outputSchema: its result, or its error object. s.mu is held.
func (s *server) checkSchema(method string, body []byte) {
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if method == "" || json.Unmarshal(body, &m) != nil {
		return
	}
	if len(m.Error) > 0 {
		s.schemas.check(method, m.Error)
		return
	}
	s.schemas.check(method, m.Result)
}

// rawFrame frames body with a Content-Length header, as it is: the suite's
// one frame writer, which the malformed-input tests also use.
func rawFrame(body string) []byte {
	return []byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))
}

// writeRaw writes bytes to the server's stdin as they are.
func (s *server) writeRaw(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = s.stdin.Write(b)
	if s.wine && bytes.Contains(b, []byte(`"method":"exit"`)) {
		// Wine's, not the server's: under Wine 8 the server does not end
		// after exit until its stdin closes, because CancelIoEx does not
		// interrupt a blocked pipe read (real Windows does; golang/go#28477).
		_ = s.stdin.Close()
	}
}

func (s *server) sendRaw(method string, params any) json.RawMessage {
	s.mu.Lock()
	s.nextID++
	id := json.RawMessage(strconv.Itoa(s.nextID))
	s.mu.Unlock()
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	s.writeMsg(msg)
	return id
}

// send sends a request without waiting and returns its id.
func (s *server) send(t testing.TB, method string, params any) json.RawMessage {
	t.Helper()
	return s.sendRaw(method, params)
}

// sendWithID sends a request with the given raw JSON id.
func (s *server) sendWithID(t testing.TB, id json.RawMessage, method string, params any) {
	t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	s.writeMsg(msg)
}

// notify sends a notification.
func (s *server) notify(t testing.TB, method string, params any) {
	t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	s.writeMsg(msg)
}

func (s *server) waitTimeout(id json.RawMessage, d time.Duration) *frame {
	k := compact(id)
	s.mu.Lock()
	if f, ok := s.replies[k]; ok {
		s.mu.Unlock()
		return f
	}
	ch := make(chan *frame, 1)
	s.waiters[k] = ch
	s.mu.Unlock()
	select {
	case f := <-ch:
		return f
	case <-s.readDone:
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.replies[k]
	case <-time.After(d):
		return nil
	}
}

// wait blocks until the reply to id arrives.
func (s *server) wait(t testing.TB, id json.RawMessage) *frame {
	t.Helper()
	f := s.waitTimeout(id, replyWait)
	if f == nil {
		s.mu.Lock()
		readErr := s.readErr
		s.mu.Unlock()
		require.NotNil(t, f, "no reply to request %s (reading the server's output: %v)", id, readErr)
	}
	return f
}

// request sends a request and returns its result or error.
func (s *server) request(t testing.TB, method string, params any) (json.RawMessage, *rpcError) {
	t.Helper()
	f := s.wait(t, s.send(t, method, params))
	return f.Result, f.Error
}

// call sends a request and requires a result.
func (s *server) call(t testing.TB, method string, params any) json.RawMessage {
	t.Helper()
	res, e := s.request(t, method, params)
	require.Nil(t, e, "%s failed: %v", method, e)
	return res
}

// callErr sends a request and requires an error reply.
func (s *server) callErr(t testing.TB, method string, params any) *rpcError {
	t.Helper()
	res, e := s.request(t, method, params)
	require.NotNil(t, e, "%s succeeded unexpectedly: %s", method, res)
	return e
}

// progress returns the value of every $/progress received for token (compared
// as compact JSON), in arrival order.
func (s *server) progress(token json.RawMessage) []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]json.RawMessage(nil), s.prog[compact(token)]...)
}

// frames returns every frame the server sent so far, in order.
func (s *server) frames() []*frame {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*frame(nil), s.got...)
}

// pid returns the server's process id (the remote server's when the suite
// runs through a transport, see remote_test.go).
func (s *server) pid() int {
	if p := remotePID(s); p > 0 {
		return p
	}
	return s.cmd.Process.Pid
}

// waitExit waits for the server process to exit and returns its status.
func (s *server) waitExit(t testing.TB) int {
	t.Helper()
	select {
	case <-s.exited:
	case <-time.After(replyWait):
		t.Fatalf("server did not exit")
	}
	if s.exitErr == nil {
		return 0
	}
	if ee, ok := s.exitErr.(*exec.ExitError); ok {
		if st, ok := ee.Sys().(syscall.WaitStatus); ok && st.Signaled() {
			return -int(st.Signal())
		}
		return ee.ExitCode()
	}
	t.Fatalf("wait: %v", s.exitErr)
	return -1
}

// decode unmarshals raw into a T.
func decode[T any](t testing.TB, raw json.RawMessage) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(raw, &v), "decode %s", raw)
	return v
}
