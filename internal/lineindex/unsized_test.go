package lineindex

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReadUnsizedProc(t *testing.T) {
	f, err := os.Open("/proc/self/status")
	require.NoError(t, err)
	defer f.Close()
	fi, err := f.Stat()
	require.NoError(t, err)
	require.Zero(t, fi.Size())
	data, cut, err := ReadUnsized(f, 1<<20)
	require.NoError(t, err)
	require.False(t, cut)
	require.Contains(t, string(data), "\nPid:")
	data, cut, err = ReadUnsized(f, 5)
	require.NoError(t, err)
	require.True(t, cut)
	require.Equal(t, "Name:", string(data))
}

// FuzzReadUnsized: the bytes are the input's first max bytes, cut exactly
// when the input is longer.
func FuzzReadUnsized(f *testing.F) {
	f.Add([]byte("a\nb\n"), uint16(2))
	f.Add([]byte(""), uint16(0))
	f.Add([]byte("xyz"), uint16(3))
	f.Fuzz(func(t *testing.T, in []byte, m uint16) {
		data, cut, err := ReadUnsized(bytes.NewReader(in), int64(m))
		require.NoError(t, err)
		require.Equal(t, len(in) > int(m), cut)
		require.Equal(t, string(in[:min(len(in), int(m))]), string(data))
	})
}
