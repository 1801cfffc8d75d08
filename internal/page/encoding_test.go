package page

import (
	"bytes"
	bin "encoding/binary"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/sourceset"
)

func utf16Bytes(s string, be bool) []byte {
	var b bytes.Buffer
	var order bin.ByteOrder = bin.LittleEndian
	if be {
		order = bin.BigEndian
	}
	_ = bin.Write(&b, order, uint16(0xfeff))
	for _, u := range utf16.Encode([]rune(s)) {
		_ = bin.Write(&b, order, u)
	}
	return b.Bytes()
}

func TestReadEncodings(t *testing.T) {
	for _, tc := range []struct {
		name, content, want, enc string
		clipped                  []int64
	}{
		{"utf-8 bom not shown", "\xef\xbb\xbfone\ntwo\n", "1:one\n2:two\n", "utf-8", nil},
		{"utf-16le crlf", string(utf16Bytes("caf\u00e9\r\n\u0a0d\u010a\r\nend", false)), "1:café\n2:\u0a0d\u010a\n3:end\n", "utf-16le", nil},
		{"utf-16be", string(utf16Bytes("h\u00e9\nx\n", true)), "1:hé\n2:x\n", "utf-16be", nil},
		{"utf-16 lone surrogate is lossy", "\xff\xfea\x00\n\x00\x00\xd8b\x00\n\x00", "1:a\n2:\uFFFDb\n", "utf-16le", []int64{2}},
		{"utf-16 odd length", string(utf16Bytes("abcdefgh\n", false)) + "b", "1:abcdefgh\n2:\uFFFD\n", "utf-16le", []int64{2}},
		{"windows-1252", "caf\xe9 au lait\r\nline two\r\n", "1:café au lait\n2:line two\n", "windows-1252", nil},
		{"utf-8 stays", "café\n", "1:café\n", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pg, abs, src, err := readTest(t, tc.content, 1, 100)
			require.NoError(t, err)
			tag := sourceset.TagOf([]byte(tc.content))
			require.Equal(t, "[f.txt#"+tag+"]\n"+tc.want, pg.Content)
			require.Equal(t, tc.enc, pg.Encoding)
			require.Equal(t, tc.clipped, pg.ClippedLines)
			require.Equal(t, int64(strings.Count(tc.want, "\n")), pg.TotalLines)
			if tc.enc != "" {
				require.Contains(t, pg.Notice, "edits keep")
			}
			for _, n := range tc.clipped {
				require.False(t, src.Has(abs, tag, int(n)), "a lossy line is not editable")
			}
		})
	}
}

func TestReadUTF16LastPage(t *testing.T) {
	var s strings.Builder
	for i := 1; i <= 30000; i++ {
		s.WriteString("línea 日本\r\n")
	}
	pg, _, _, err := readTest(t, string(utf16Bytes(s.String(), false)), 29999, 10)
	require.NoError(t, err)
	require.Contains(t, pg.Content, "\n29999:línea 日本\n30000:línea 日本\n")
	require.Equal(t, int64(30000), pg.TotalLines)
}
