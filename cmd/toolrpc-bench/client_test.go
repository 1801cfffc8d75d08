package main

import (
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

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
