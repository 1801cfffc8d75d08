package rpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func frameOf(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// readAll drains a frameStream, returning the requests it yielded (the message
// each ReadObject kept, its id as text) and the error that ended it.
func readAll(t testing.TB, in string) (reqs []map[string]any, out string, err error) {
	var w bytes.Buffer
	s := newFrameStream(strings.NewReader(in), &w, nil, nil)
	for {
		var standIn map[string]any
		if err = s.ReadObject(&standIn); err != nil {
			return reqs, w.String(), err
		}
		m := s.take()
		reqs = append(reqs, map[string]any{"id": string(m.id), "method": m.method, "params": string(m.params)})
	}
}

// parseFrames splits codec output into JSON bodies, failing on a bad frame.
func parseFrames(t testing.TB, out string) []map[string]any {
	var got []map[string]any
	r := bufio.NewReader(strings.NewReader(out))
	for {
		line, err := r.ReadString('\n')
		if errors.Is(err, io.EOF) && line == "" {
			return got
		}
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(line, "Content-Length: "), "bad header %q", line)
		n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "Content-Length: ")))
		require.NoError(t, err)
		blank, err := r.ReadString('\n')
		require.NoError(t, err)
		require.Equal(t, "\r\n", blank)
		body := make([]byte, n)
		_, err = io.ReadFull(r, body)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal(body, &m), "body %q", body)
		got = append(got, m)
	}
}

func TestStream_Frames(t *testing.T) {
	cases := []struct {
		name      string
		in        string
		wantReqs  int
		wantCodes []float64 // codes of the error replies the codec wrote itself
		wantErr   error
	}{
		{"one request", frameOf(`{"jsonrpc":"2.0","id":1,"method":"m"}`), 1, nil, io.EOF},
		{"lowercase header", "content-length: 36\r\n\r\n" + `{"jsonrpc":"2.0","id":1,"method":"m"}`[:36], 0, []float64{CodeParseError}, io.EOF},
		{"content-type ignored", "Content-Type: application/vscode-jsonrpc\r\nCONTENT-LENGTH: 37\r\n\r\n" + `{"jsonrpc":"2.0","id":1,"method":"m"}`, 1, nil, io.EOF},
		{"stray blank lines", "\r\n\r\n" + frameOf(`{"jsonrpc":"2.0","id":1,"method":"m"}`), 1, nil, io.EOF},
		{"bad json then good", frameOf(`{`) + frameOf(`{"jsonrpc":"2.0","id":2,"method":"m"}`), 1, []float64{CodeParseError}, io.EOF},
		{"batch", frameOf(`[]`), 0, []float64{CodeInvalidRequest}, io.EOF},
		{"wrong version", frameOf(`{"jsonrpc":"1.0","id":1,"method":"m"}`), 0, []float64{CodeInvalidRequest}, io.EOF},
		{"scalar params", frameOf(`{"jsonrpc":"2.0","id":1,"method":"m","params":3}`), 0, []float64{CodeInvalidRequest}, io.EOF},
		{"response dropped", frameOf(`{"jsonrpc":"2.0","id":1,"result":3}`), 0, nil, io.EOF},
		{"missing length", "X-Other: 1\r\n\r\n" + frameOf(`{"jsonrpc":"2.0","id":1,"method":"m"}`), 1, []float64{CodeInvalidRequest}, io.EOF},
		{"negative length", "Content-Length: -5\r\n\r\n" + frameOf(`{"jsonrpc":"2.0","id":1,"method":"m"}`), 1, []float64{CodeInvalidRequest}, io.EOF},
		{"garbage then resync", "junk{}Content-Length: 37\r\n\r\n" + `{"jsonrpc":"2.0","id":1,"method":"m"}`, 1, nil, io.EOF},
		{"truncated body", "Content-Length: 100\r\n\r\n{}", 0, nil, io.ErrUnexpectedEOF},
		{"truncated header", "Content-Length: 100\r\n", 0, nil, io.ErrUnexpectedEOF},
		{"empty input", "", 0, nil, io.EOF},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reqs, out, err := readAll(t, tc.in)
			require.ErrorIs(t, err, tc.wantErr)
			require.Len(t, reqs, tc.wantReqs)
			var codes []float64
			for _, f := range parseFrames(t, out) {
				codes = append(codes, f["error"].(map[string]any)["code"].(float64))
			}
			require.Equal(t, tc.wantCodes, codes)
		})
	}
}

func TestStream_OversizedFrameSkipped(t *testing.T) {
	old := maxFrameBytes
	maxFrameBytes = 30
	defer func() { maxFrameBytes = old }()
	in := frameOf(strings.Repeat("x", 31)) + frameOf(`{"id":1,"method":"m"}`)
	reqs, out, err := readAll(t, in)
	require.ErrorIs(t, err, io.EOF)
	require.Len(t, reqs, 1)
	frames := parseFrames(t, out)
	require.Len(t, frames, 1)
	require.Nil(t, frames[0]["id"])
	require.Contains(t, frames[0]["error"].(map[string]any)["message"], "exceeds the 30-byte limit")
}

func TestStream_IDsCarriedAsText(t *testing.T) {
	for _, id := range []string{`0`, `-1`, `1.5`, `18446744073709551616`, `"x"`, `"a\"b"`, `1e3`} {
		t.Run(id, func(t *testing.T) {
			reqs, _, _ := readAll(t, frameOf(`{"jsonrpc":"2.0","id":`+id+`,"method":"m"}`))
			require.Len(t, reqs, 1)
			require.Equal(t, id, reqs[0]["id"])
			// Both reply paths write the id text back verbatim.
			var w bytes.Buffer
			s := newFrameStream(strings.NewReader(""), &w, nil, nil)
			require.NoError(t, s.writeResult(json.RawMessage(id), json.RawMessage(`1`)))
			s.writeError(json.RawMessage(id), wireError{Code: CodeToolFailure, Message: "x"})
			require.Equal(t,
				frameOf(`{"jsonrpc":"2.0","id":`+id+`,"result":1}`)+
					frameOf(`{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32001,"message":"x"}}`),
				w.String())
		})
	}
}

// FuzzStream feeds arbitrary bytes to the codec: it must never panic, must end
// with io.EOF or io.ErrUnexpectedEOF, and everything it writes must be
// well-formed frames of valid JSON.
func FuzzStream(f *testing.F) {
	f.Add(frameOf(`{"jsonrpc":"2.0","id":1,"method":"m"}`))
	f.Add(frameOf(`{`) + frameOf(`[1]`))
	f.Add("content-length: 5\r\n\r\n{}{}{")
	f.Add("Content-Length: 99999999999999999999\r\n\r\n")
	f.Add("junk\nContent-Length: 2\r\n\r\n{}")
	f.Add(frameOf("{\"id\":\"\xff\",\"method\":\"m\"}"))
	f.Add(frameOf(`{"jsonrpc":"2.0","id":{"a":1},"method":"m","params":"x"}`))
	f.Fuzz(func(t *testing.T, in string) {
		old := maxFrameBytes
		maxFrameBytes = 1 << 16
		defer func() { maxFrameBytes = old }()
		reqs, out, err := readAll(t, in)
		if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("stream ended with %v", err)
		}
		for _, r := range reqs {
			if _, ok := r["method"].(string); !ok {
				t.Fatalf("request without a method: %v", r)
			}
		}
		parseFrames(t, out)
	})
}
