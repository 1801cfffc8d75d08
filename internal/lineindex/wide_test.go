package lineindex

import (
	"bytes"
	"context"
	"encoding/binary"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/require"
)

// encodeUTF16 returns s in UTF-16 of the given form, with a BOM.
func encodeUTF16(s string, form Form) []byte {
	var b bytes.Buffer
	var order binary.ByteOrder = binary.LittleEndian
	if form == UTF16BE {
		order = binary.BigEndian
	}
	_ = binary.Write(&b, order, uint16(0xfeff))
	for _, u := range utf16.Encode([]rune(s)) {
		_ = binary.Write(&b, order, u)
	}
	return b.Bytes()
}

// wideLines is the oracle: the lines of s as SPEC §2 splits them, each
// re-encoded without a BOM (line 1 keeps the BOM's bytes).
func wideLines(s string, form Form) [][]byte {
	if s == "" {
		return [][]byte{encodeUTF16("", form)}
	}
	parts := strings.SplitAfter(s, "\n")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	var out [][]byte
	for i, p := range parts {
		if strings.HasSuffix(p, "\n") {
			p = strings.TrimSuffix(strings.TrimSuffix(p, "\n"), "\r")
		}
		b := encodeUTF16(p, form)[2:]
		if i == 0 {
			b = encodeUTF16(p, form)
		}
		out = append(out, b)
	}
	return out
}

func checkWide(t *testing.T, s string, form Form) {
	data := encodeUTF16(s, form)
	ix, err := BuildForm(context.Background(), bytes.NewReader(data), form)
	require.NoError(t, err)
	want := wideLines(s, form)
	require.Equal(t, int64(len(want)), ix.Lines, "lines of %q", s)
	for from := int64(1); from <= ix.Lines; from++ {
		var got [][]byte
		require.NoError(t, ix.Scan(context.Background(), bytes.NewReader(data), from, 1<<20, func(no int64, line []byte, long bool) bool {
			require.Equal(t, from+int64(len(got)), no)
			require.False(t, long)
			got = append(got, append([]byte{}, line...))
			return true
		}))
		require.Equal(t, want[from-1:], got, "from %d of %q", from, s)
	}
}

func TestWide_LinesAndUnits(t *testing.T) {
	shrink(t, 8, 3, 16, 8)
	for _, form := range []Form{UTF16LE, UTF16BE} {
		for _, s := range []string{
			"", "a", "a\n", "a\r\nb", "\n\n", "hi\r\nthere\r\n",
			"\u0a0d\u010a\n\u0a00x", // units holding 0x0a or 0x0d bytes are not endings
			strings.Repeat("line 日本語\r\n", 50) + "last",
		} {
			checkWide(t, s, form)
		}
	}
}

func FuzzWide(f *testing.F) {
	f.Add("a\r\nb\n\u0a0d", true)
	f.Add("\u010a\n", false)
	f.Fuzz(func(t *testing.T, s string, be bool) {
		s = strings.ToValidUTF8(s, "?")
		if len(s) > 4096 {
			return
		}
		form := UTF16LE
		if be {
			form = UTF16BE
		}
		shrink(t, 8, 3, 16, 8)
		checkWide(t, s, form)
	})
}

// FuzzWideHostile builds and scans arbitrary bytes (odd length, lone
// surrogates) as UTF-16: never a crash, and the lines cover every byte.
func FuzzWideHostile(f *testing.F) {
	f.Add([]byte{0xff, 0xfe, 'a', 0, '\n'}, false)
	f.Add([]byte{0xff, 0xfe, 0x00, 0xd8, '\n', 0}, false)
	f.Fuzz(func(t *testing.T, data []byte, be bool) {
		form := UTF16LE
		if be {
			form = UTF16BE
		}
		ix, err := BuildForm(context.Background(), bytes.NewReader(data), form)
		require.NoError(t, err)
		n := int64(0)
		require.NoError(t, ix.Scan(context.Background(), bytes.NewReader(data), 1, 64, func(no int64, line []byte, long bool) bool {
			n++
			require.Equal(t, n, no)
			return true
		}))
		require.Equal(t, ix.Lines, n)
	})
}

// BenchmarkBuildForms times the pass over 64 MB of lines as UTF-8 and as
// UTF-16LE (the SPEC §4.1 bench row's engine, without the server).
func BenchmarkBuildForms(b *testing.B) {
	line := "the quick brown fox jumps over the lazy dog 0123456789\n"
	utf8Data := []byte(strings.Repeat(line, (64<<20)/len(line)))
	wide := encodeUTF16(strings.Repeat(line, (32<<20)/len(line)), UTF16LE)
	for _, tc := range []struct {
		name string
		data []byte
		form Form
	}{{"utf8", utf8Data, Bytes}, {"utf16le", wide, UTF16LE}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.data)))
			for b.Loop() {
				if _, err := BuildForm(context.Background(), bytes.NewReader(tc.data), tc.form); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
