package lspframe

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func frameOf(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

// readAll reads in until Read fails with something other than a
// *HeaderError, returning the bodies, the header errors' reasons and the
// final error.
func readAll(in string, maxBody int64) (bodies, reasons []string, junk []string, err error) {
	r := NewReader(strings.NewReader(in), maxBody)
	r.OnJunk = func(line []byte) { junk = append(junk, string(line)) }
	for {
		var b []byte
		b, err = r.Read()
		var he *HeaderError
		if errors.As(err, &he) {
			reasons = append(reasons, he.Reason)
			continue
		}
		if err != nil {
			return bodies, reasons, junk, err
		}
		bodies = append(bodies, string(b))
	}
}

func TestReader(t *testing.T) {
	tests := []struct {
		name        string
		in          string
		wantBodies  []string
		wantReasons []string
		wantJunk    []string
		wantErr     error
	}{
		{"plain", frameOf("{}"), []string{"{}"}, nil, nil, io.EOF},
		{"two", frameOf("[1]") + frameOf(""), []string{"[1]", ""}, nil, nil, io.EOF},
		{"case and extra header", "content-length:3\r\nContent-Type: x\r\n\r\n[1]", []string{"[1]"}, nil, nil, io.EOF},
		{"bare newlines", "Content-Length: 1\n\n7", []string{"7"}, nil, nil, io.EOF},
		{"stray blank lines", "\r\n\n" + frameOf("{}"), []string{"{}"}, nil, nil, io.EOF},
		{"empty input", "", nil, nil, nil, io.EOF},
		{"no length", "X: 1\r\n\r\n" + frameOf("{}"), []string{"{}"}, []string{"missing Content-Length header"}, nil, io.EOF},
		{"negative length", "Content-Length: -1\r\n\r\n" + frameOf("{}"), []string{"{}"}, []string{`bad Content-Length " -1"`}, nil, io.EOF},
		{"bad length then good in one block", "Content-Length: x\r\nContent-Length: 2\r\n\r\n{}", []string{"{}"}, []string{`bad Content-Length " x"`}, nil, io.EOF},
		{"too large, body skipped", frameOf("0123456789") + frameOf("{}"), []string{"{}"}, []string{"Content-Length 10 exceeds the 8-byte limit"}, nil, io.EOF},
		{"junk line skipped", "garbage\r\n" + frameOf("{}"), []string{"{}"}, nil, []string{"garbage"}, io.EOF},
		{"resync inside a line", "junk{}Content-Length: 2\r\n\r\n{}", []string{"{}"}, nil, nil, io.EOF},
		{"header block too big", "X: " + strings.Repeat("a", 9000) + "\r\n\r\n" + frameOf("{}"), []string{"{}"}, []string{"header block over 8192 bytes"}, nil, io.EOF},
		{"header line too long", strings.Repeat("a", 70000) + "\r\n" + frameOf("{}"), []string{"{}"}, []string{"header line too long"}, nil, io.EOF},
		{"truncated body", "Content-Length: 5\r\n\r\n{}", nil, nil, nil, io.ErrUnexpectedEOF},
		{"truncated header", "Content-Length: 5", nil, nil, nil, io.ErrUnexpectedEOF},
		{"truncated header block", "Content-Length: 5\r\n", nil, nil, nil, io.ErrUnexpectedEOF},
		{"truncated oversized body", "Content-Length: 100\r\n\r\n{}", nil, []string{"Content-Length 100 exceeds the 8-byte limit"}, nil, io.ErrUnexpectedEOF},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bodies, reasons, junk, err := readAll(tc.in, 8)
			require.ErrorIs(t, err, tc.wantErr)
			require.Equal(t, tc.wantBodies, bodies)
			require.Equal(t, tc.wantReasons, reasons)
			require.Equal(t, tc.wantJunk, junk)
		})
	}
}

// TestReader_RefusalBeforeBody: an oversized frame is refused as soon as its
// header is read, before its body arrives (a peer announcing 1 TiB gets its
// answer without sending it).
func TestReader_RefusalBeforeBody(t *testing.T) {
	pr, pw := io.Pipe()
	r := NewReader(pr, 8)
	go pw.Write([]byte("Content-Length: 1099511627776\r\n\r\n"))
	_, err := r.Read()
	var he *HeaderError
	require.ErrorAs(t, err, &he)
	require.Equal(t, "Content-Length 1099511627776 exceeds the 8-byte limit", he.Reason)
	pw.Close()
	_, err = r.Read()
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
}

func TestReader_Buffered(t *testing.T) {
	in := frameOf("{}") + frameOf("[1]")
	r := NewReader(strings.NewReader(in), 8)
	body, err := r.Read()
	require.NoError(t, err)
	require.Equal(t, "{}", string(body))
	require.Equal(t, len(frameOf("[1]")), r.Buffered(), "the second frame is read from the input but not consumed")
}

func TestWrite(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, Write(&b, []byte(`{"a":1}`)))
	require.NoError(t, Write(&b, nil))
	require.Equal(t, "Content-Length: 7\r\n\r\n{\"a\":1}Content-Length: 0\r\n\r\n", b.String())
}

// FuzzReader feeds arbitrary bytes to the Reader: it must end with io.EOF or
// io.ErrUnexpectedEOF, never panic or loop, and every body it returns must
// read back unchanged after Write.
func FuzzReader(f *testing.F) {
	f.Add([]byte(frameOf("{}")))
	f.Add([]byte("content-length:0\r\n\r\n"))
	f.Add([]byte("Content-Length: 3\r\nContent-Length: 1\r\n\r\nabc"))
	f.Add([]byte("Content-Length: 10\r\n\r\nshort"))
	f.Add([]byte("junk\nContent-Length: x\r\n\r\nContent-Length: 99999\r\n\r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		bodies, _, _, err := readAll(string(in), 1<<16)
		if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("reading ended with %v", err)
		}
		var w bytes.Buffer
		for _, b := range bodies {
			require.NoError(t, Write(&w, []byte(b)))
		}
		again, reasons, junk, err := readAll(w.String(), 1<<16)
		require.ErrorIs(t, err, io.EOF)
		require.Empty(t, reasons)
		require.Empty(t, junk)
		require.Equal(t, bodies, again, "frames read back after writing are unchanged")
	})
}
