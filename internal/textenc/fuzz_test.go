package textenc

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

var all = []*Encoding{UTF8BOM, UTF16LE, UTF16BE, Windows1252, ShiftJIS, EUCJP, GB18030, GBK, Big5, EUCKR}

// FuzzDecodeExact: whenever Decode says its text is exact, encoding the
// text gives back the bytes, in every encoding; nothing panics on any input
// (odd-length UTF-16, lone surrogates, cut sequences).
func FuzzDecodeExact(f *testing.F) {
	f.Add([]byte("caf\xe9\r\n"))
	f.Add([]byte{0x00, 0xd8, 'a', 0})
	f.Add([]byte{'a', 0, 'b'})
	f.Add([]byte("\x93\xfa\x96\x7b\x8c\xea"))
	f.Add([]byte{0x81, 0x30, 0x81, 0x30})
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, e := range all {
			text, exact := e.Decode(b)
			if !exact {
				continue
			}
			back, err := e.Encode(text)
			require.NoError(t, err, e.Name())
			require.True(t, bytes.Equal(b, back), "%s: %q -> %q -> %q", e.Name(), b, text, back)
		}
	})
}

// FuzzDetect: Detect never panics; a legacy encoding it names decodes the
// head (up to its last newline) exactly, and it never names one for a head
// holding a NUL byte or valid UTF-8.
func FuzzDetect(f *testing.F) {
	f.Add([]byte("caf\xe9 au lait\r\n"), true)
	f.Add([]byte("// \x93\xfa\x96\x7b\x8c\xea\x82\xcc\x83\x52\x83\x81\x83\x93\x83\x67\n"), false)
	f.Add([]byte("\xff\xfeh\x00i\x00"), true)
	f.Fuzz(func(t *testing.T, head []byte, atEOF bool) {
		e := Detect(head, atEOF)
		if e == nil || ByBOM(head) != nil {
			return
		}
		require.NotContains(t, string(head), "\x00")
		body := head
		if !atEOF {
			if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
				body = head[:i+1]
			} else {
				body = trimCut(head)
			}
		}
		_, exact := e.Decode(body)
		require.True(t, exact, e.Name())
	})
}
