package main

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReadFrame(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr string
	}{
		{"plain", "Content-Length: 2\r\n\r\n{}", "{}", ""},
		{"case and extra header", "content-length:3\r\nContent-Type: x\r\n\r\n[1]", "[1]", ""},
		{"bare newlines", "Content-Length: 1\n\n7", "7", ""},
		{"clean EOF", "", "", "EOF"},
		{"no length", "X: 1\r\n\r\n{}", "", "no Content-Length"},
		{"bad length", "Content-Length: -1\r\n\r\n", "", "bad length"},
		{"huge length", "Content-Length: 99999999999\r\n\r\n", "", "bad length"},
		{"no colon", "garbage\r\n\r\n", "", "no colon"},
		{"truncated body", "Content-Length: 5\r\n\r\n{}", "", "unexpected EOF"},
		{"truncated header", "Content-Length: 5", "", "unexpected EOF"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readFrame(bufio.NewReader(strings.NewReader(tc.in)))
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, string(got))
		})
	}
}

func FuzzReadFrame(f *testing.F) {
	f.Add([]byte("Content-Length: 2\r\n\r\n{}"))
	f.Add([]byte("content-length:0\r\n\r\n"))
	f.Add([]byte("Content-Length: 3\r\nContent-Length: 1\r\n\r\nabc"))
	f.Add([]byte("Content-Length: 10\r\n\r\nshort"))
	f.Fuzz(func(t *testing.T, in []byte) {
		body, err := readFrame(bufio.NewReader(bytes.NewReader(in)))
		if err != nil {
			return
		}
		var w bytes.Buffer
		require.NoError(t, writeFrame(&w, body))
		again, err := readFrame(bufio.NewReader(&w))
		require.NoError(t, err)
		require.Equal(t, body, again, "a frame read back after writing is unchanged")
	})
}

func TestStatusKB(t *testing.T) {
	tests := []struct {
		name, in, field string
		want            int64
		wantErr         bool
	}{
		{"hwm", "Name:\ttoolrpc\nVmPeak:\t  9 kB\nVmHWM:\t   16384 kB\n", "VmHWM", 16384, false},
		{"meminfo", "MemTotal:       24683520 kB\n", "MemTotal", 24683520, false},
		{"missing", "VmRSS: 1 kB\n", "VmHWM", 0, true},
		{"garbage", "VmHWM: lots kB\n", "VmHWM", 0, true},
		{"negative", "VmHWM: -3 kB\n", "VmHWM", 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := statusKB([]byte(tc.in), tc.field)
			if tc.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func FuzzStatusKB(f *testing.F) {
	f.Add([]byte("VmHWM:\t 123 kB\n"))
	f.Add([]byte("VmHWM:\n"))
	f.Add([]byte("x\nVmHWM: 9\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		kb, err := statusKB(in, "VmHWM")
		if err == nil {
			require.GreaterOrEqual(t, kb, int64(0))
		}
	})
}

func TestTailBuffer(t *testing.T) {
	tb := &tailBuffer{max: 4}
	for _, s := range []string{"ab", "cdef", "g"} {
		n, err := io.WriteString(tb, s)
		require.NoError(t, err)
		require.Equal(t, len(s), n)
	}
	require.Equal(t, "defg", tb.String())
}
