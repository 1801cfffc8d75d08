package textenc

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// iconv converts UTF-8 text to charset with the system's iconv (libc-bin).
func iconv(t testing.TB, charset, text string) []byte {
	t.Helper()
	cmd := exec.Command("iconv", "-f", "UTF-8", "-t", charset)
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.Output()
	require.NoError(t, err, "iconv -t %s", charset)
	return out
}

// Samples is the text of each listed encoding's test file.
var samples = []struct {
	charset string // iconv's name
	want    *Encoding
	text    string
}{
	{"WINDOWS-1252", Windows1252, "caf\u00e9 au lait\nline two\n\u201cquoted\u201d cp1252 na\u00efve cr\u00e8me br\u00fbl\u00e9e\n"},
	{"ISO-8859-1", Windows1252, "caf\u00e9\n"},
	{"SHIFT_JIS", ShiftJIS, "// 日本語のコメントです。ファイルを読みます。\nint main() { return 0; } // 終了\n"},
	{"EUC-JP", EUCJP, "// 日本語のコメントです。ファイルを読みます。\nint main() { return 0; } // 終了\n"},
	{"GB18030", GB18030, "// 中文注释：读取文件。\nint main() { return 0; } // 结束\n"},
	{"GBK", GB18030, "// 中文注释：读取文件，然后写回去。\nint main() { return 0; } // 结束\n"},
	{"BIG5", Big5, "// 中文註釋：讀取檔案。\nint main() { return 0; } // 結束\n"},
	{"EUC-KR", EUCKR, "// 한국어 주석입니다. 파일을 읽습니다.\nint main() { return 0; }\n"},
	{"UTF-16", UTF16LE, "caf\u00e9 日本語\r\nline two\r\n"}, // glibc writes a BOM, little-endian here
	{"UTF-16BE", nil, "plain\n"}, // no BOM: the NUL rule stands (binary)
}

func TestDetect_Iconv(t *testing.T) {
	for _, tc := range samples {
		for _, crlf := range []bool{false, true} {
			text := tc.text
			if crlf {
				text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\n", "\r\n")
			}
			t.Run(tc.charset+map[bool]string{true: "_CRLF"}[crlf], func(t *testing.T) {
				b := iconv(t, tc.charset, text)
				got := Detect(b, true)
				require.Equal(t, tc.want.Name(), got.Name())
				if got == nil {
					return
				}
				body := b[len(got.BOM()):]
				dec, exact := got.Decode(body)
				require.True(t, exact)
				require.Equal(t, text, dec)
				enc, err := got.Encode(dec)
				require.NoError(t, err)
				require.Equal(t, body, enc)
			})
		}
	}
}

func TestDetect_UTF8StaysUTF8(t *testing.T) {
	for _, s := range []string{"", "plain ascii\n", "café 日本語 中文\n", "cut at the end \xe6\x97"} {
		require.Nil(t, Detect([]byte(s), false), "%q", s)
	}
}

func TestDetect_DamagedUTF8IsNotLatin(t *testing.T) {
	// Mostly UTF-8 with one stray byte: shown as today, never as mojibake.
	require.Nil(t, Detect([]byte("café crème brûlée \xe9 voilà\n"), true))
	// The UTF-8 is on a last line the head cuts: it still counts.
	require.Nil(t, Detect([]byte("hit caf\xe9 latin-1\nhit "+strings.Repeat("日本", 2000)), false))
}

func TestDetect_NULIsNotText(t *testing.T) {
	require.Nil(t, Detect([]byte("caf\xe9\x00\x01\x02"), true))
}

func TestEncode_Unrepresentable(t *testing.T) {
	for _, tc := range []struct {
		e    *Encoding
		text string
		char rune
	}{
		{Windows1252, "deuxième ✓", '✓'},
		{ShiftJIS, "日本語 é", 'é'},
		{EUCKR, "한국어 中文 ✓", '✓'},
		{Big5, "中文 😀", '😀'},
	} {
		_, err := tc.e.Encode(tc.text)
		var ue *UnrepresentableError
		require.ErrorAs(t, err, &ue, tc.e.Name())
		require.Equal(t, tc.char, ue.Char, tc.e.Name())
	}
	b, err := Windows1252.Encode("deuxième")
	require.NoError(t, err)
	require.Equal(t, []byte("deuxi\xe8me"), b)
}

func TestDecode_NotExact(t *testing.T) {
	_, exact := UTF16LE.Decode([]byte{0x00, 0xd8, 'a', 0}) // lone surrogate
	require.False(t, exact)
	_, exact = UTF16LE.Decode([]byte{'a', 0, 'b'}) // odd length
	require.False(t, exact)
	_, exact = ShiftJIS.Decode([]byte{0x82}) // lead byte alone
	require.False(t, exact)
	text, exact := UTF16BE.Decode([]byte{0, 'h', 0, 'i'})
	require.True(t, exact)
	require.Equal(t, "hi", text)
}

func TestLookup(t *testing.T) {
	for label, want := range map[string]*Encoding{"UTF-8": nil, "latin1": Windows1252, "Shift_JIS": ShiftJIS, "utf-16": UTF16LE} {
		got, err := Lookup(label)
		require.NoError(t, err)
		require.Equal(t, want, got, label)
	}
	_, err := Lookup("ebcdic")
	require.ErrorContains(t, err, "unknown encoding")
	require.True(t, bytes.Equal(UTF16LE.BOM(), []byte{0xff, 0xfe}))
}

// BenchmarkDetect times detection of a 4 KB head per sample encoding.
func BenchmarkDetect(b *testing.B) {
	for _, s := range samples[:9] {
		enc := iconv(b, s.charset, s.text)
		head := bytes.Repeat(enc, 1+4096/len(enc))[:4096]
		b.Run(s.charset, func(b *testing.B) {
			for b.Loop() {
				Detect(head, false)
			}
		})
	}
}
