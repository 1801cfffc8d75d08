package rpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/toolrpc/toolrpc/limits"
)

// maxFrameBytes is the largest body the codec accepts; tests lower it.
var maxFrameBytes int64 = limits.MaxFrameBytes

// Stream is toolrpc's LSP-framed jsonrpc2.ObjectStream. Unlike the stock
// codec it never lets a bad frame end the connection: a malformed body is
// answered with -32700, an invalid request with -32600, an oversized frame
// with -32600 (its body skipped without being allocated), and the next frame
// is read. Only a clean EOF (io.EOF) or a truncated frame
// (io.ErrUnexpectedEOF) ends ReadObject.
//
// Request ids are carried through jsonrpc2 as strings holding the id's JSON
// text, and written back verbatim, so any string or number the client sends
// (-1, 1e3, 2^64) is echoed exactly.
type Stream struct {
	r   *bufio.Reader
	in  *countingReader
	c   io.Closer
	log *log.Logger

	// mark is, once ReadObject returned a request, how many input bytes had
	// arrived by then (read, or waiting in the pipe). Only the read loop
	// touches it.
	mark int64
	// handled counts the input bytes whose messages have been handled;
	// handledCh is closed (and replaced) each time it grows.
	hmu       sync.Mutex
	handled   int64
	handledCh chan struct{}

	wmu sync.Mutex
	w   *bufio.Writer
	// dl is the output when it takes write deadlines (a pollable pipe or
	// socket), else nil.
	dl interface{ SetWriteDeadline(time.Time) error }
}

// NewStream returns a Stream reading frames from r and writing them to w;
// Close closes c (which may be nil).
func NewStream(r io.Reader, w io.Writer, c io.Closer, logger *log.Logger) *Stream {
	if logger == nil {
		logger = log.New(io.Discard, "", 0)
	}
	in := &countingReader{r: r}
	s := &Stream{r: bufio.NewReaderSize(in, 64*1024), in: in, w: bufio.NewWriterSize(w, 64*1024), c: c, log: logger,
		handledCh: make(chan struct{})}
	s.dl, _ = w.(interface{ SetWriteDeadline(time.Time) error })
	return s
}

// endWrites makes every write still blocked at t, and every later one, fail
// once t has passed, when the output takes write deadlines. It reports
// whether it does.
func (s *Stream) endWrites(t time.Time) bool {
	return s.dl != nil && s.dl.SetWriteDeadline(t) == nil
}

// countingReader counts the bytes read from the input.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// waiting returns how many input bytes wait in the kernel (FIONREAD, alias
// TIOCINQ, on a pipe or socket
// on stdin), or 0 when that cannot be known.
func (c *countingReader) waiting() int64 {
	f, ok := c.r.(*os.File)
	if !ok {
		return 0
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	_ = rc.Control(func(fd uintptr) { n, _ = unix.IoctlGetInt(int(fd), unix.TIOCINQ) })
	return int64(max(n, 0))
}

// setHandled records that every message in the first n input bytes has been
// handled, waking the calls that wait for it.
func (s *Stream) setHandled(n int64) {
	s.hmu.Lock()
	defer s.hmu.Unlock()
	if n <= s.handled {
		return
	}
	s.handled = n
	close(s.handledCh)
	s.handledCh = make(chan struct{})
}

// inputMark returns, right after ReadObject returned a request, the input
// position up to which everything had already arrived: a $/cancelRequest
// sent together with the request lies before it.
func (s *Stream) inputMark() int64 { return s.mark }

// awaitHandled waits until every message before the input position mark has
// been handled (so a cancel that arrived with a request has been seen), or
// ctx is done, or the input has ended.
func (s *Stream) awaitHandled(ctx context.Context, mark int64) {
	for {
		s.hmu.Lock()
		done, ch := s.handled >= mark, s.handledCh
		s.hmu.Unlock()
		if done {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

// Close closes the underlying input.
func (s *Stream) Close() error {
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
func (s *Stream) ReadObject(v any) error {
	for {
		s.setHandled(s.in.n - int64(s.r.Buffered()))
		body, err := s.readFrame()
		if errors.Is(err, errSkip) {
			continue
		}
		if err != nil {
			s.setHandled(math.MaxInt64) // nothing more will be handled
			if errors.Is(err, io.ErrUnexpectedEOF) {
				s.log.Printf("input ended inside a frame: %v", err)
			}
			return err
		}
		msg, err := s.prepare(body)
		if err != nil {
			continue
		}
		if err := json.Unmarshal(msg, v); err != nil {
			s.replyError(nil, CodeInvalidRequest, "invalid request: "+err.Error())
			continue
		}
		s.mark = s.in.n + s.in.waiting()
		return nil
	}
}

// readFrame reads one header block and its body. Header errors are answered
// here and reported as errSkip.
func (s *Stream) readFrame() ([]byte, error) {
	length := int64(-1)
	headerBytes := 0
	started := false
	for {
		line, err := s.r.ReadSlice('\n')
		headerBytes += len(line)
		if err != nil {
			if errors.Is(err, bufio.ErrBufferFull) {
				// An overlong header line: drop it and everything to the next line end.
				for errors.Is(err, bufio.ErrBufferFull) {
					_, err = s.r.ReadSlice('\n')
				}
				if err != nil {
					return nil, io.ErrUnexpectedEOF
				}
				s.replyError(nil, CodeInvalidRequest, "invalid frame: header line too long")
				return nil, errSkip
			}
			if errors.Is(err, io.EOF) {
				if !started && len(bytes.TrimSpace(line)) == 0 {
					return nil, io.EOF
				}
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		trimmed := bytes.TrimRight(line, "\r\n")
		if len(trimmed) == 0 {
			if !started {
				continue // stray blank line between frames
			}
			break
		}
		started = true
		if headerBytes > limits.MaxHeaderBytes {
			s.replyError(nil, CodeInvalidRequest, fmt.Sprintf("invalid frame: header block over %d bytes", limits.MaxHeaderBytes))
			return nil, errSkip
		}
		name, value, ok := splitHeader(trimmed)
		if !ok || !bytes.EqualFold(name, []byte("content-length")) {
			// Garbage before a header (e.g. the rest of a body sent without a
			// length): resynchronise on a Content-Length inside the line.
			if i := indexFold(trimmed, "content-length:"); i > 0 {
				name, value, ok = splitHeader(trimmed[i:])
			}
			if !ok {
				s.log.Printf("ignoring malformed header line %q", clipForLog(trimmed))
				continue
			}
		}
		if bytes.EqualFold(name, []byte("content-length")) {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
			if err != nil || n < 0 {
				s.replyError(nil, CodeInvalidRequest, fmt.Sprintf("invalid frame: bad Content-Length %q", clipForLog(value)))
				length = -2
				continue
			}
			length = n
		}
	}
	switch {
	case length == -2:
		return nil, errSkip
	case length < 0:
		s.replyError(nil, CodeInvalidRequest, "invalid frame: missing Content-Length header")
		return nil, errSkip
	case length > maxFrameBytes:
		s.replyError(nil, CodeInvalidRequest, fmt.Sprintf("invalid frame: Content-Length %d exceeds the %d-byte limit", length, maxFrameBytes))
		if _, err := io.CopyN(io.Discard, s.r, length); err != nil {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, errSkip
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.r, body); err != nil {
		return nil, io.ErrUnexpectedEOF
	}
	return body, nil
}

func splitHeader(line []byte) (name, value []byte, ok bool) {
	i := bytes.IndexByte(line, ':')
	if i <= 0 {
		return nil, nil, false
	}
	name = bytes.TrimSpace(line[:i])
	for _, c := range name {
		if c <= ' ' || c >= 0x7f {
			return nil, nil, false
		}
	}
	return name, line[i+1:], true
}

func indexFold(s []byte, lowerSub string) int {
	return bytes.Index(bytes.ToLower(s), []byte(lowerSub))
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

// wireRequest is a validated request as handed to jsonrpc2: the id, when
// present, is a JSON string holding the id's original JSON text.
type wireRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
	ID      *string         `json:"id,omitempty"`
}

// prepare validates a body and returns the request to hand to jsonrpc2.
// Invalid bodies are answered here and reported as an error.
func (s *Stream) prepare(body []byte) ([]byte, error) {
	if !utf8.Valid(body) {
		s.replyError(nil, CodeParseError, "parse error: body is not valid UTF-8")
		return nil, errSkip
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		s.replyError(nil, CodeParseError, "parse error: empty body")
		return nil, errSkip
	}
	var probe json.RawMessage
	if err := json.Unmarshal(trimmed, &probe); err != nil {
		s.replyError(nil, CodeParseError, "parse error: "+err.Error())
		return nil, errSkip
	}
	switch trimmed[0] {
	case '{':
	case '[':
		s.replyError(nil, CodeInvalidRequest, "invalid request: batch requests are not supported")
		return nil, errSkip
	default:
		s.replyError(nil, CodeInvalidRequest, "invalid request: a message must be a JSON object")
		return nil, errSkip
	}
	var env envelope
	if err := json.Unmarshal(trimmed, &env); err != nil {
		s.replyError(nil, CodeInvalidRequest, "invalid request: "+err.Error())
		return nil, errSkip
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
			return nil, errSkip
		}
	}
	if env.Method == nil {
		if env.Result != nil || env.Error != nil {
			return nil, errSkip // a response: the server sends no requests, so none is awaited
		}
		s.replyError(id, CodeInvalidRequest, "invalid request: missing method")
		return nil, errSkip
	}
	if env.JSONRPC != nil && *env.JSONRPC != "2.0" {
		s.replyError(id, CodeInvalidRequest, fmt.Sprintf("invalid request: jsonrpc must be \"2.0\", not %q", *env.JSONRPC))
		return nil, errSkip
	}
	params := env.Params
	if len(params) > 0 && params[0] != '{' && params[0] != '[' && string(params) != "null" {
		if id == nil {
			return nil, errSkip
		}
		s.replyError(id, CodeInvalidRequest, "invalid request: params must be an object or an array")
		return nil, errSkip
	}
	req := wireRequest{JSONRPC: "2.0", Method: *env.Method, Params: params}
	if id != nil {
		text := string(id)
		req.ID = &text
	}
	return json.Marshal(req)
}

// WriteObject writes one message. Only notifications take this path: the
// server writes its replies itself (writeResult, writeError), with the
// request's original id text.
func (s *Stream) WriteObject(obj any) error {
	b, err := json.Marshal(obj)
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
func (s *Stream) replyError(id json.RawMessage, code int64, msg string) {
	s.writeError(id, wireError{Code: code, Message: msg})
}

// writeError writes an error reply carrying id (a request's original JSON
// text; nil means null). Failures are logged: the peer is gone or the error
// is unencodable, and nothing else can be done with it.
func (s *Stream) writeError(id json.RawMessage, e wireError) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(errorResponse{JSONRPC: "2.0", ID: id, Error: e})
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
func (s *Stream) writeResult(id, result json.RawMessage) error {
	frame := make([]byte, 0, len(result)+len(id)+40)
	frame = append(frame, `{"jsonrpc":"2.0","id":`...)
	frame = append(frame, id...)
	frame = append(frame, `,"result":`...)
	frame = append(frame, result...)
	return s.writeFrame(append(frame, '}'))
}

func (s *Stream) writeFrame(body []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if _, err := fmt.Fprintf(s.w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
		return err
	}
	if _, err := s.w.Write(body); err != nil {
		return err
	}
	return s.w.Flush()
}
