package lineedit

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"hash"
	"io"

	"github.com/toolrpc/toolrpc/internal/sourceset"
)

// bufBytes is the read and write buffer of the edit passes.
var bufBytes = 256 * 1024 // tests shorten it to split lines across reads

// checkEvery is how many lines an edit pass handles between checks of its
// context for cancellation.
var checkEvery = 4096 // tests shorten it

// Stats is what a first pass (Scan) learns about a file.
type Stats struct {
	size         int64
	sum          uint32 // CRC-32C of the whole file
	lines        int
	crlf, lf     int  // lines ending in \r\n, in a bare \n
	finalNewline bool // the last line has an ending (true for an empty file)
}

// ending returns the line ending new lines get: the file's majority.
func (st Stats) ending() string {
	if st.crlf > st.lf {
		return "\r\n"
	}
	return "\n"
}

// Scan reads r to its end and returns its stats; it stops early with the
// context's error.
func Scan(ctx context.Context, r io.Reader) (Stats, error) {
	h := sourceset.NewHash()
	buf := make([]byte, bufBytes)
	var st Stats
	var prev, last byte
	chunks := 0
	for {
		n, err := r.Read(buf)
		if n > 0 {
			b := buf[:n]
			h.Write(b)
			st.size += int64(n)
			for i := bytes.IndexByte(b, '\n'); i >= 0; {
				p := prev
				if i > 0 {
					p = b[i-1]
				}
				if p == '\r' {
					st.crlf++
				} else {
					st.lf++
				}
				j := bytes.IndexByte(b[i+1:], '\n')
				if j < 0 {
					break
				}
				i += 1 + j
			}
			prev, last = b[n-1], b[n-1]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return Stats{}, err
		}
		if chunks++; chunks%64 == 0 && ctx.Err() != nil {
			return Stats{}, ctx.Err()
		}
	}
	st.sum = h.Sum32()
	st.lines = st.crlf + st.lf
	st.finalNewline = st.size == 0 || last == '\n'
	if !st.finalNewline {
		st.lines++
	}
	return st, nil
}

// lineReader yields the lines of a file with their endings, hashing
// every byte it reads, without holding a whole line in memory.
type lineReader struct {
	br *bufio.Reader
	h  hash.Hash32
	n  int64
}

// next reads one line, passing its text (without ending) to text in pieces
// that are valid only during the call, and returns its ending: "\n", "\r\n",
// or "" for a last line without one. ok is false at the end of the file.
func (lr *lineReader) next(text func([]byte)) (ending string, ok bool, err error) {
	carryCR, got := false, false
	for {
		b, err := lr.br.ReadSlice('\n')
		if len(b) > 0 {
			lr.h.Write(b)
			lr.n += int64(len(b))
			got = true
		}
		switch {
		case err == nil:
			body := b[:len(b)-1]
			if len(body) == 0 && carryCR {
				return "\r\n", true, nil
			}
			if carryCR {
				text([]byte{'\r'})
			}
			if len(body) > 0 && body[len(body)-1] == '\r' {
				text(body[:len(body)-1])
				return "\r\n", true, nil
			}
			text(body)
			return "\n", true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			if carryCR {
				text([]byte{'\r'})
			}
			carryCR = b[len(b)-1] == '\r'
			if carryCR {
				b = b[:len(b)-1]
			}
			text(b)
		case errors.Is(err, io.EOF):
			if carryCR {
				text([]byte{'\r'})
			}
			text(b)
			return "", got, nil
		default:
			return "", false, err
		}
	}
}
