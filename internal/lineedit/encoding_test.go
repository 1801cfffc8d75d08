package lineedit

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/sourceset"
	"github.com/toolrpc/toolrpc/internal/textenc"
	"github.com/toolrpc/toolrpc/wire"
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

// editLine replaces line n of the file abs (all lines visible) with text.
func editLine(t *testing.T, abs string, n int, text string) (*wire.EditResult, error) {
	t.Helper()
	data, err := os.ReadFile(abs)
	require.NoError(t, err)
	tag := sourceset.TagOf(data)
	src := sourceset.New()
	src.Add(abs, tag, 1, 1<<30)
	ops, _ := json.Marshal([]map[string]any{{"op": "replace", "start": n, "lines": []string{text}}})
	hunks, err := ParseOps(ops)
	require.NoError(t, err)
	return Edit(context.Background(), abs, "f.txt", tag, hunks, src)
}

func TestEditEncodings_Iconv(t *testing.T) {
	for _, tc := range []struct {
		charset, line2, newLine string
	}{
		{"WINDOWS-1252", "café au lait", "deuxième ligne"},
		{"SHIFT_JIS", "日本語のコメントです。", "新しい行です。"},
		{"EUC-JP", "日本語のコメントです。", "新しい行です。"},
		{"GB18030", "中文注释：读取文件。", "新的一行。"},
		{"BIG5", "中文註釋：讀取檔案。", "新的一行。"},
		{"EUC-KR", "한국어 주석입니다.", "새로운 줄입니다."},
		{"UTF-16", "café 日本語", "deuxième 新しい"},
		{"UTF-16BE", "café 日本語", "deuxième 新しい"}, // BOM added below
	} {
		for _, nl := range []string{"\n", "\r\n"} {
			t.Run(tc.charset+map[string]string{"\r\n": "_CRLF"}[nl], func(t *testing.T) {
				text := "line one" + nl + tc.line2 + nl + "line three " + tc.line2 + nl
				old := iconv(t, tc.charset, text)
				if tc.charset == "UTF-16BE" {
					old = append([]byte{0xfe, 0xff}, old...)
				}
				abs := filepath.Join(t.TempDir(), "f.txt")
				require.NoError(t, os.WriteFile(abs, old, 0o644))
				res, err := editLine(t, abs, 1, tc.newLine)
				require.NoError(t, err)
				got, err := os.ReadFile(abs)
				require.NoError(t, err)
				want := iconv(t, tc.charset, tc.newLine+nl+tc.line2+nl+"line three "+tc.line2+nl)
				if tc.charset == "UTF-16BE" {
					want = append([]byte{0xfe, 0xff}, want...)
				}
				require.Equal(t, want, got)
				require.Contains(t, res.Content, "1:"+tc.newLine+"\n2:"+tc.line2+"\n")
				require.Equal(t, sourceset.TagOf(got), res.Tag)
			})
		}
	}
}

// TestEditWindows1252_10MB edits one line of a 10 MB windows-1252 file and
// compares every other byte.
func TestEditWindows1252_10MB(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	words := []string{"caf\xe9", "na\xefve", "cr\xe8me", "br\xfbl\xe9e", "\x93quoted\x94", "plain", "text", "\xc0 bient\xf4t"}
	var b bytes.Buffer
	var starts []int
	for b.Len() < 10<<20 {
		starts = append(starts, b.Len())
		for i := 0; i < 8; i++ {
			b.WriteString(words[rng.Intn(len(words))] + " ")
		}
		b.WriteString("\r\n")
	}
	old := b.Bytes()
	abs := filepath.Join(t.TempDir(), "f.txt")
	require.NoError(t, os.WriteFile(abs, old, 0o644))
	n := len(starts) / 2 // line n+1 starts at starts[n]
	_, err := editLine(t, abs, n+1, "deuxième “ligne” €")
	require.NoError(t, err)
	got, err := os.ReadFile(abs)
	require.NoError(t, err)
	newLine := []byte("deuxi\xe8me \x93ligne\x94 \x80\r\n")
	require.Equal(t, old[:starts[n]], got[:starts[n]], "bytes before the line")
	require.Equal(t, newLine, got[starts[n]:starts[n]+len(newLine)])
	require.Equal(t, old[starts[n+1]:], got[starts[n]+len(newLine):], "bytes after the line")
}

// TestEditUnencodableRefused: an edit the file's encoding cannot hold, or
// one of a UTF-16 file that does not decode exactly, is refused and the file
// is unchanged.
func TestEditUnencodableRefused(t *testing.T) {
	for _, tc := range []struct {
		name, text, msg string
		line            int
		old             []byte
	}{
		{"unrepresentable", "check ✓", `'✓' (U+2713) cannot be written in windows-1252`, 2, []byte("caf\xe9\r\nline two\r\n")},
		{"utf-16 not exact", "b", "", 1, []byte{0xff, 0xfe, 'a', 0, '\n', 0, 0x00, 0xd8, '\n', 0}}, // a lone surrogate on line 2
	} {
		t.Run(tc.name, func(t *testing.T) {
			abs := filepath.Join(t.TempDir(), "f.txt")
			require.NoError(t, os.WriteFile(abs, tc.old, 0o644))
			_, err := editLine(t, abs, tc.line, tc.text)
			var e *Error
			require.ErrorAs(t, err, &e)
			require.Equal(t, Unencodable, e.Refusal)
			require.Contains(t, e.Msg, tc.msg)
			got, _ := os.ReadFile(abs)
			require.Equal(t, tc.old, got)
		})
	}
}

func TestEditKeepsUTF8BOM(t *testing.T) {
	abs := filepath.Join(t.TempDir(), "f.txt")
	require.NoError(t, os.WriteFile(abs, []byte("\xef\xbb\xbfone\ntwo\n"), 0o644))
	res, err := editLine(t, abs, 1, "uno")
	require.NoError(t, err)
	got, _ := os.ReadFile(abs)
	require.Equal(t, "\xef\xbb\xbfuno\ntwo\n", string(got))
	require.Contains(t, res.Content, "1:uno\n2:two\n")
}

func TestWriteEncoded(t *testing.T) {
	dir := t.TempDir()
	src := sourceset.New()
	ctx := context.Background()
	for _, tc := range []struct{ label, charset, text string }{
		// Long enough for the detector to be sure when the file is written again.
		{"windows-1252", "WINDOWS-1252", "café\r\n"},
		{"shift_jis", "SHIFT_JIS", "// 日本語のコメントです。ファイルを読みます。\n"},
		{"euc-jp", "EUC-JP", "// 日本語のコメントです。ファイルを読みます。\n"},
		{"gb18030", "GB18030", "// 中文注释：读取文件，然后写回去。\n"},
		{"big5", "BIG5", "// 中文註釋：讀取檔案。然後寫回去。\n"},
		{"euc-kr", "EUC-KR", "// 한국어 주석입니다. 파일을 읽습니다.\n"},
		{"utf-16le", "UTF-16", "café 日本語\n"},
	} {
		abs := filepath.Join(dir, tc.label+".txt")
		res, err := WriteEncoded(ctx, abs, tc.label, tc.text, tc.label, false, src)
		require.NoError(t, err, tc.label)
		got, _ := os.ReadFile(abs)
		require.Equal(t, iconv(t, tc.charset, tc.text), got, tc.label)
		require.Equal(t, tc.label, res.Encoding)
		require.Equal(t, 1, res.TotalLines)
		// A later write without encoding keeps the file's.
		res, err = Write(ctx, abs, tc.label, tc.text+tc.text, false, src)
		require.NoError(t, err, tc.label)
		got, _ = os.ReadFile(abs)
		require.Equal(t, iconv(t, tc.charset, tc.text+tc.text), got, tc.label)
	}
	abs := filepath.Join(dir, "new.txt")
	_, err := WriteEncoded(ctx, abs, "new.txt", "✓\n", "windows-1252", false, src)
	var e *Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, Unencodable, e.Refusal)
	require.NoFileExists(t, abs)
	_, err = WriteEncoded(ctx, abs, "new.txt", "x\n", "ebcdic", false, src)
	require.ErrorAs(t, err, &e)
	require.Equal(t, BadEncoding, e.Refusal)
	require.NotNil(t, textenc.UTF8BOM)
}
