package lspframe

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/toolrpc/toolrpc/limits"
)

// readBufferBytes is the Reader's buffer, and so the longest header line it
// can parse.
const readBufferBytes = 64 * limits.KB

// A HeaderError reports a header block the Reader rejected. The Reader has
// consumed the offending input (for an oversized frame, its body too); the
// next Read goes on with the next frame.
type HeaderError struct {
	// Reason says what was wrong, e.g. "missing Content-Length header".
	Reason string
}

func (e *HeaderError) Error() string { return e.Reason }

// Reader reads frames from a byte stream. It is not safe for concurrent use.
type Reader struct {
	r       *bufio.Reader
	maxBody int64

	// OnJunk, if set, is called with each header line the Reader skipped
	// because it is not a "Name: value" header (the slice is only valid
	// during the call).
	OnJunk func(line []byte)

	// The header block being read; it survives a HeaderError returned in
	// the middle of a block (a bad Content-Length), so the rest of that
	// block is read as part of it.
	started     bool
	length      int64 // -1: none seen; -2: a bad one was reported
	headerBytes int
	skip        int64 // body bytes of a refused frame, skipped by the next Read
}

// NewReader returns a Reader of r that refuses bodies over maxBody bytes.
func NewReader(r io.Reader, maxBody int64) *Reader {
	rd := &Reader{r: bufio.NewReaderSize(r, readBufferBytes), maxBody: maxBody}
	rd.reset()
	return rd
}

// Buffered returns how many bytes the Reader has taken from its input but
// not yet consumed: input position = bytes read from the input − Buffered.
func (r *Reader) Buffered() int { return r.r.Buffered() }

func (r *Reader) reset() { r.started, r.length, r.headerBytes = false, -1, 0 }

// Read returns the body of the next frame. Its error is io.EOF at a clean
// end between frames, one wrapping io.ErrUnexpectedEOF at an end inside a
// frame, a *HeaderError for a rejected header (reading may go on), or the
// underlying reader's error. A HeaderError is returned as soon as the
// header is read: an oversized body is skipped by the next Read.
func (r *Reader) Read() ([]byte, error) {
	if r.skip > 0 {
		n := r.skip
		r.skip = 0
		if _, err := io.CopyN(io.Discard, r.r, n); err != nil {
			return nil, fmt.Errorf("skip an oversized body: %w", io.ErrUnexpectedEOF)
		}
	}
	for {
		if err := r.headerBlock(); err != nil {
			return nil, err
		}
		length := r.length
		r.reset()
		switch {
		case length == -2:
			// The bad Content-Length was reported when it was read; the
			// block ends here and carries no body.
			continue
		case length < 0:
			return nil, &HeaderError{"missing Content-Length header"}
		case length > r.maxBody:
			r.skip = length
			return nil, &HeaderError{fmt.Sprintf("Content-Length %d exceeds the %d-byte limit", length, r.maxBody)}
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(r.r, body); err != nil {
			return nil, fmt.Errorf("read a %d-byte body: %w", length, io.ErrUnexpectedEOF)
		}
		return body, nil
	}
}

// headerBlock reads header lines up to the blank line ending the block.
func (r *Reader) headerBlock() error {
	for {
		line, err := r.r.ReadSlice('\n')
		r.headerBytes += len(line)
		if err != nil {
			return r.lineError(line, err)
		}
		trimmed := bytes.TrimRight(line, "\r\n")
		if len(trimmed) == 0 {
			if !r.started {
				continue // stray blank line between frames
			}
			return nil
		}
		r.started = true
		if r.headerBytes > limits.MaxHeaderBytes {
			r.reset()
			return &HeaderError{fmt.Sprintf("header block over %d bytes", limits.MaxHeaderBytes)}
		}
		if err := r.header(trimmed); err != nil {
			return err
		}
	}
}

// lineError handles a failed ReadSlice of a header line.
func (r *Reader) lineError(line []byte, err error) error {
	switch {
	case errors.Is(err, bufio.ErrBufferFull):
		// An overlong header line: drop it and everything to the next line end.
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = r.r.ReadSlice('\n')
		}
		r.reset()
		if err != nil {
			return fmt.Errorf("skip an overlong header line: %w", io.ErrUnexpectedEOF)
		}
		return &HeaderError{"header line too long"}
	case errors.Is(err, io.EOF):
		if !r.started && len(bytes.TrimSpace(line)) == 0 {
			return io.EOF
		}
		return fmt.Errorf("read a header: %w", io.ErrUnexpectedEOF)
	}
	return err
}

// header takes in one non-blank header line.
func (r *Reader) header(line []byte) error {
	name, value, ok := splitHeader(line)
	if !ok || !bytes.EqualFold(name, contentLength) {
		// Garbage before a header (e.g. the rest of a body sent without a
		// length): resynchronise on a Content-Length inside the line.
		if i := bytes.Index(bytes.ToLower(line), []byte("content-length:")); i > 0 {
			name, value, ok = splitHeader(line[i:])
		}
		if !ok {
			if r.OnJunk != nil {
				r.OnJunk(line)
			}
			return nil
		}
	}
	if !bytes.EqualFold(name, contentLength) {
		return nil
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
	if err != nil || n < 0 {
		r.length = -2
		return &HeaderError{fmt.Sprintf("bad Content-Length %q", clip(value))}
	}
	r.length = n
	return nil
}

var contentLength = []byte("content-length")

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

// clip shortens b for an error message.
func clip(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

// Write writes body to w as one frame. It makes two Write calls (header,
// body): callers that share w serialise their Write calls, and a caller
// that wants one system call per frame passes a *bufio.Writer and flushes.
func Write(w io.Writer, body []byte) error {
	var hdr [40]byte
	h := append(strconv.AppendInt(append(hdr[:0], "Content-Length: "...), int64(len(body)), 10), "\r\n\r\n"...)
	if _, err := w.Write(h); err != nil {
		return err
	}
	_, err := w.Write(body)
	return err
}
