package rpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/toolrpc/toolrpc/internal/logging"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/lspframe"
)

// maxFrameBytes is the largest body the codec accepts; tests lower it.
var maxFrameBytes int64 = limits.MaxFrameBytes

// frameStream is toolrpc's LSP-framed jsonrpc2.ObjectStream. Unlike the stock
// codec it never lets a bad frame end the connection: a malformed body is
// answered with -32700, an invalid request with -32600, an oversized frame
// with -32600 (its body skipped without being allocated), and the next frame
// is read. Only a clean EOF (io.EOF) or a truncated frame
// (io.ErrUnexpectedEOF) ends ReadObject.
//
// Each body is decoded once, by the frameStream: the request it holds is kept as
// the current message (frameStream.take), and jsonrpc2, whose read loop hands
// each message to the server before it reads the next, is given only a
// constant stand-in that says request or notification. A request's id is
// kept as its compact JSON text and written back verbatim, so any string or
// number the client sends (-1, 1e3, 2^64) is echoed exactly.
type frameStream struct {
	r   *lspframe.Reader
	in  *countingReader
	c   io.Closer
	log logging.Logf
	inputMarks

	wmu sync.Mutex
	w   *bufio.Writer
	// dl is the output when it takes write deadlines (a pollable pipe or
	// socket), else nil.
	dl interface{ SetWriteDeadline(time.Time) error }

	// peer waits for the replies to the server's own requests.
	peer *Peer

	// cur is the message ReadObject read last, until the server takes it.
	cur message
}

// message is one request or notification as the frameStream decoded it.
type message struct {
	// id is the request's id as its compact JSON text; nil for a
	// notification.
	id     json.RawMessage
	method string
	params json.RawMessage // "null" when absent
}

// The stand-ins jsonrpc2's read loop decodes in place of each message.
var (
	requestStandIn      = []byte(`{"jsonrpc":"2.0","method":"-","id":0}`)
	notificationStandIn = []byte(`{"jsonrpc":"2.0","method":"-"}`)
)

// take returns the message the last ReadObject read. The server calls it
// from jsonrpc2's handler, which runs in the read loop before the next
// ReadObject.
func (s *frameStream) take() message {
	m := s.cur
	s.cur = message{}
	return m
}

// newFrameStream returns a frameStream reading frames from r and writing them to w;
// Close closes c (which may be nil).
func newFrameStream(r io.Reader, w io.Writer, c io.Closer, logger logging.Logf) *frameStream {
	in := &countingReader{r: r}
	s := &frameStream{r: lspframe.NewReader(in, maxFrameBytes), in: in, w: bufio.NewWriterSize(w, 64*1024), c: c, log: logger}
	s.handledCh = make(chan struct{})
	s.r.OnJunk = func(line []byte) { s.log.Printf("ignoring malformed header line %q", clipForLog(line)) }
	s.dl, _ = w.(interface{ SetWriteDeadline(time.Time) error })
	s.peer = newPeer(s)
	return s
}

// endWrites makes every write still blocked at t, and every later one, fail
// once t has passed, when the output takes write deadlines. It reports
// whether it does.
func (s *frameStream) endWrites(t time.Time) bool {
	return s.dl != nil && s.dl.SetWriteDeadline(t) == nil
}

// Close closes the underlying input.
func (s *frameStream) Close() error {
	if s.c == nil {
		return nil
	}
	return s.c.Close()
}

// errSkip reports a frame that was answered or dropped; reading goes on.
var errSkip = errors.New("frame skipped")

// ReadObject reads the next valid request into v (a jsonrpc2 message).
//
// It runs in the read loop, which handles each message before it reads the
// next: on entry, every message before the read position has been handled.
func (s *frameStream) ReadObject(v any) error {
	for {
		s.setHandled(s.in.n - int64(s.r.Buffered()))
		body, err := s.r.Read()
		var herr *lspframe.HeaderError
		if errors.As(err, &herr) {
			s.replyError(nil, CodeInvalidRequest, "invalid frame: "+herr.Reason)
			continue
		}
		if err != nil {
			s.setHandled(math.MaxInt64) // nothing more will be handled
			s.peer.end()
			if errors.Is(err, io.ErrUnexpectedEOF) {
				s.log.Printf("input ended inside a frame: %v", err)
			}
			return err
		}
		m, err := s.prepare(body)
		if err != nil {
			continue
		}
		standIn := requestStandIn
		if m.id == nil {
			standIn = notificationStandIn
		}
		if err := json.Unmarshal(standIn, v); err != nil {
			return fmt.Errorf("jsonrpc2 refused the stand-in message: %w", err)
		}
		s.cur = m
		s.mark = s.in.n + s.in.waiting()
		return nil
	}
}

func clipForLog(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

// envelope is the part of a message the codec checks.
type envelope struct {
	JSONRPC *string         `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// prepare validates a body, decoding it once, and returns its message.
// Invalid bodies are answered here and reported as an error.
func (s *frameStream) prepare(body []byte) (message, error) {
	if !utf8.Valid(body) {
		s.replyError(nil, CodeParseError, "parse error: body is not valid UTF-8")
		return message{}, errSkip
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		s.replyError(nil, CodeParseError, "parse error: empty body")
		return message{}, errSkip
	}
	// One decode: json.Unmarshal checks the whole text before it fills env,
	// so a syntax error is a parse error and any other an invalid request.
	var env envelope
	err := json.Unmarshal(trimmed, &env)
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &syntax):
		s.replyError(nil, CodeParseError, "parse error: "+err.Error())
		return message{}, errSkip
	case trimmed[0] == '[':
		s.replyError(nil, CodeInvalidRequest, "invalid request: batch requests are not supported")
		return message{}, errSkip
	case trimmed[0] != '{':
		s.replyError(nil, CodeInvalidRequest, "invalid request: a message must be a JSON object")
		return message{}, errSkip
	case err != nil:
		s.replyError(nil, CodeInvalidRequest, "invalid request: "+err.Error())
		return message{}, errSkip
	}
	var id json.RawMessage
	if len(env.ID) > 0 {
		switch env.ID[0] {
		case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			var buf bytes.Buffer
			_ = json.Compact(&buf, env.ID)
			id = buf.Bytes()
		default:
			s.replyError(nil, CodeInvalidRequest, "invalid request: id must be a string or a number")
			return message{}, errSkip
		}
	}
	if env.Method == nil {
		if env.Result != nil || env.Error != nil {
			s.peer.deliver(id, env.Result, env.Error) // a reply to a request of the server (Peer.Call)
			return message{}, errSkip
		}
		s.replyError(id, CodeInvalidRequest, "invalid request: missing method")
		return message{}, errSkip
	}
	if env.JSONRPC != nil && *env.JSONRPC != "2.0" {
		s.replyError(id, CodeInvalidRequest, fmt.Sprintf("invalid request: jsonrpc must be \"2.0\", not %q", *env.JSONRPC))
		return message{}, errSkip
	}
	params := env.Params
	if len(params) > 0 && params[0] != '{' && params[0] != '[' && string(params) != "null" {
		if id == nil {
			return message{}, errSkip
		}
		s.replyError(id, CodeInvalidRequest, "invalid request: params must be an object or an array")
		return message{}, errSkip
	}
	if len(params) == 0 {
		params = json.RawMessage("null")
	}
	return message{id: id, method: *env.Method, params: params}, nil
}

// WriteObject refuses: jsonrpc2.ObjectStream asks for it, but jsonrpc2 is
// given only the read loop. Every frame the server writes goes through the
// frameStream's own writers (writeResult, writeError, writeNotification, the
// Peer), marshalled once by wire.Marshal; a conn.Reply or Notify that found
// its way in would fail here rather than write a frame of another encoding.
func (s *frameStream) WriteObject(any) error {
	return errors.New("rpc: the server writes its frames itself; jsonrpc2 only reads them")
}

// notification is a notification as the server writes it.
type notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// writeNotification writes one notification, marshalled without HTML
// escaping (jsonrpc2's Notify would escape the params).
func (s *frameStream) writeNotification(method string, params any) error {
	b, err := marshal(notification{JSONRPC: "2.0", Method: method, Params: params})
	if err != nil {
		return err
	}
	return s.writeFrame(b)
}

// errorResponse is an error reply as written on the wire.
type errorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   wireError       `json:"error"`
}

type wireError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// replyError answers a frame the codec rejected; id nil means null.
func (s *frameStream) replyError(id json.RawMessage, code int64, msg string) {
	s.writeError(id, wireError{Code: code, Message: msg})
}

// writeError writes an error reply carrying id (a request's original JSON
// text; nil means null). Failures are logged: the peer is gone or the error
// is unencodable, and nothing else can be done with it.
func (s *frameStream) writeError(id json.RawMessage, e wireError) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := marshal(errorResponse{JSONRPC: "2.0", ID: id, Error: e})
	if err != nil {
		s.log.Printf("marshal error reply: %v", err)
		return
	}
	if err := s.writeFrame(b); err != nil {
		s.log.Printf("write error reply: %v", err)
	}
}

// writeResult writes a success reply: result (already marshalled) spliced in
// after the request's original id text, so it is marshalled only once.
func (s *frameStream) writeResult(id, result json.RawMessage) error {
	frame := make([]byte, 0, len(result)+len(id)+40)
	frame = append(frame, `{"jsonrpc":"2.0","id":`...)
	frame = append(frame, id...)
	frame = append(frame, `,"result":`...)
	frame = append(frame, result...)
	return s.writeFrame(append(frame, '}'))
}

func (s *frameStream) writeFrame(body []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := lspframe.Write(s.w, body); err != nil {
		return err
	}
	return s.w.Flush()
}
