package conformance

import (
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// SPEC §4.1: files in other encodings are shown decoded, edited in their own
// encoding, byte-exact everywhere else. Every file here is made by iconv.

// encReadReply is ReadResult with SPEC §4.1's encoding.
type encReadReply struct {
	Content      string `json:"content"`
	Tag          string `json:"tag"`
	TotalLines   int    `json:"totalLines"`
	ClippedLines []int  `json:"clippedLines"`
	Notice       string `json:"notice"`
	Encoding     string `json:"encoding"`
}

// encGrepReply is the content-mode GrepResult with SPEC §4.1's encodings.
type encGrepReply struct {
	Matches []struct {
		Path string `json:"path"`
		Line int    `json:"line"`
		Text string `json:"text"`
	} `json:"matches"`
	Tags      map[string]string `json:"tags"`
	Encodings map[string]string `json:"encodings"`
}

// iconvTo converts UTF-8 text to charset with the system's iconv.
func iconvTo(t testing.TB, charset, text string) []byte {
	t.Helper()
	cmd := exec.Command("iconv", "-f", "UTF-8", "-t", charset)
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.Output()
	require.NoError(t, err, "iconv -t %s", charset)
	return out
}

// fileTag is SPEC §4's tag: the first 4 hex digits of the CRC-32C of b.
func fileTag(b []byte) string {
	return fmt.Sprintf("%08x", crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))[:4]
}

// encSample is one listed encoding: iconv's name, the label read reports,
// and a line of text in its script (long enough for the detector).
type encSample struct {
	charset, label, word, line, newLine string
}

var encSamples = []encSample{
	{"WINDOWS-1252", "windows-1252", "café", "un café au lait, s’il vous plaît", "deuxième ligne « éditée »"},
	{"ISO-8859-1", "windows-1252", "café", "un café au lait, très chaud", "deuxième ligne éditée"},
	{"SHIFT_JIS", "shift_jis", "日本語", "// 日本語のコメントです。ファイルを読みます。", "// 新しい行です。編集しました。"},
	{"EUC-JP", "euc-jp", "日本語", "// 日本語のコメントです。ファイルを読みます。", "// 新しい行です。編集しました。"},
	{"GB18030", "gb18030", "中文", "// 中文注释：读取文件，然后写回去。", "// 新的一行：编辑过了。"},
	{"GBK", "gb18030", "中文", "// 中文注释：读取文件，然后写回去。", "// 新的一行：编辑过了。"},
	{"BIG5", "big5", "中文", "// 中文註釋：讀取檔案，然後寫回去。", "// 新的一行：編輯過了。"},
	{"EUC-KR", "euc-kr", "한국어", "// 한국어 주석입니다. 파일을 읽습니다.", "// 새로운 줄입니다. 편집했습니다."},
	{"UTF-16", "utf-16le", "日本語", "café 日本語 中文", "deuxième 新しい"}, // glibc: LE with a BOM
}

// encText is the sample file's text: three lines, the word on lines 2 and 3.
func encText(s encSample, nl string) string {
	return "first line" + nl + s.line + nl + "last " + s.word + nl
}

func forEachSample(t *testing.T, fn func(t *testing.T, s encSample, nl string)) {
	for _, s := range encSamples {
		for _, nl := range []string{"\n", "\r\n"} {
			t.Run(s.charset+map[string]string{"\r\n": "_CRLF"}[nl], func(t *testing.T) { fn(t, s, nl) })
		}
	}
}

// TestEncoding_BOMDecides: a UTF-8 BOM is not shown; a UTF-16 BOM makes a
// file with NUL bytes text, in either byte order.
//
// Checks SPEC §4.1 (detection), §4.
func TestEncoding_BOMDecides(t *testing.T) {
	root := t.TempDir()
	files := map[string][]byte{
		"bom8.txt":    []byte("\xef\xbb\xbfone\r\ntwo\r\n"),
		"utf16le.txt": iconvTo(t, "UTF-16LE", "\ufeffhi\r\nthere\r\n"),
		"utf16be.txt": iconvTo(t, "UTF-16BE", "\ufeffhi\r\nthere\r\n"),
		"nobom16.txt": iconvTo(t, "UTF-16LE", "hi\r\nthere\r\n"),
	}
	for name, b := range files {
		require.NoError(t, os.WriteFile(filepath.Join(root, name), b, 0o644))
	}
	s := start(t, withRoot(root))
	for name, want := range map[string]struct{ content, enc string }{
		"bom8.txt":    {"1:one\n2:two\n", "utf-8"},
		"utf16le.txt": {"1:hi\n2:there\n", "utf-16le"},
		"utf16be.txt": {"1:hi\n2:there\n", "utf-16be"},
	} {
		r := decode[encReadReply](t, s.call(t, "tools/read", map[string]any{"path": name}))
		require.Equal(t, "["+name+"#"+fileTag(files[name])+"]\n"+want.content, r.Content, name)
		require.Equal(t, want.enc, r.Encoding, name)
		require.Equal(t, 2, r.TotalLines, name)
		require.Contains(t, r.Notice, "byte-order mark", name)
	}
	e := s.callErr(t, "tools/read", map[string]any{"path": "nobom16.txt"})
	require.Equal(t, "TOOL_BINARY_CONTENT", e.Kind, "without a BOM the NUL rule stands")
}

// TestEncoding_ValidUTF8StaysUTF8: valid UTF-8 has no encoding field and no
// notice of one, whatever its script.
//
// Checks SPEC §4.1 (detection).
func TestEncoding_ValidUTF8StaysUTF8(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "u.txt"), []byte("café 日本語 中文 한국어\n"), 0o644))
	s := start(t, withRoot(root))
	raw := s.call(t, "tools/read", map[string]any{"path": "u.txt"})
	require.NotContains(t, string(raw), `"encoding"`)
	r := decode[encReadReply](t, raw)
	require.Equal(t, "[u.txt#"+r.Tag+"]\n1:café 日本語 中文 한국어\n", r.Content)
	require.Empty(t, r.Notice)
}

// TestEncoding_ReadLegacyDecoded: each listed encoding (iconv, LF and CRLF)
// is read decoded, with its label, a notice, and the tag of its bytes.
//
// Checks SPEC §4.1 (read).
func TestEncoding_ReadLegacyDecoded(t *testing.T) {
	root := t.TempDir()
	s := start(t, withRoot(root))
	forEachSample(t, func(t *testing.T, smp encSample, nl string) {
		b := iconvTo(t, smp.charset, encText(smp, nl))
		name := smp.charset + fmt.Sprint(len(nl)) + ".txt"
		require.NoError(t, os.WriteFile(filepath.Join(root, name), b, 0o644))
		r := decode[encReadReply](t, s.call(t, "tools/read", map[string]any{"path": name}))
		require.Equal(t, "["+name+"#"+fileTag(b)+"]\n1:first line\n2:"+smp.line+"\n3:last "+smp.word+"\n", r.Content)
		require.Equal(t, smp.label, r.Encoding)
		require.Empty(t, r.ClippedLines)
		require.Contains(t, r.Notice, smp.label)
		require.Contains(t, r.Notice, "shown decoded")
	})
}

// TestEncoding_UnsureKeepsTodaysRule: bytes no detector is sure of, and
// UTF-16 that does not decode exactly, are shown as U+FFFD and clipped.
//
// Checks SPEC §4.1 (detection), §4.
func TestEncoding_UnsureKeepsTodaysRule(t *testing.T) {
	root := t.TempDir()
	lone := append(iconvTo(t, "UTF-16LE", "\ufeffgood line\n"), 0x00, 0xd8, 'x', 0, '\n', 0) // lone surrogate on line 2
	files := map[string][]byte{
		"stray.txt": []byte("ok\nab\xffcd\n"),
		"lone.txt":  lone,
	}
	for name, b := range files {
		require.NoError(t, os.WriteFile(filepath.Join(root, name), b, 0o644))
	}
	s := start(t, withRoot(root))
	r := decode[encReadReply](t, s.call(t, "tools/read", map[string]any{"path": "stray.txt"}))
	require.Equal(t, "[stray.txt#"+r.Tag+"]\n1:ok\n2:ab\uFFFDcd\n", r.Content)
	require.Equal(t, []int{2}, r.ClippedLines)
	require.Empty(t, r.Encoding)
	r = decode[encReadReply](t, s.call(t, "tools/read", map[string]any{"path": "lone.txt"}))
	require.Equal(t, "[lone.txt#"+r.Tag+"]\n1:good line\n2:\uFFFDx\n", r.Content)
	require.Equal(t, []int{2}, r.ClippedLines)
	require.Equal(t, "utf-16le", r.Encoding)
}

// TestEncoding_EditKeepsEncodingByteExact: replacing line 2 writes the new
// line in the file's encoding and leaves every other byte as it was.
//
// Checks SPEC §4.1 (edit), §8.
func TestEncoding_EditKeepsEncodingByteExact(t *testing.T) {
	root := t.TempDir()
	s := start(t, withRoot(root))
	forEachSample(t, func(t *testing.T, smp encSample, nl string) {
		old := iconvTo(t, smp.charset, encText(smp, nl))
		name := smp.charset + fmt.Sprint(len(nl)) + ".txt"
		p := filepath.Join(root, name)
		require.NoError(t, os.WriteFile(p, old, 0o644))
		r := decode[encReadReply](t, s.call(t, "tools/read", map[string]any{"path": name}))
		e := decode[editReply](t, s.call(t, "tools/edit", map[string]any{"path": name, "tag": r.Tag,
			"ops": []map[string]any{{"op": "replace", "start": 2, "lines": []string{smp.newLine}}}}))
		got, err := os.ReadFile(p)
		require.NoError(t, err)
		want := iconvTo(t, smp.charset, "first line"+nl+smp.newLine+nl+"last "+smp.word+nl)
		require.Equal(t, want, got)
		require.Equal(t, fileTag(got), e.Tag)
		require.Contains(t, e.Content, "2:"+smp.newLine+"\n3:last "+smp.word+"\n")
	})
}

// TestEncoding_EditUnrepresentableRefused: text the file's encoding cannot
// represent is INVALID_ARGUMENT naming the character; the file is unchanged.
//
// Checks SPEC §4.1 (edit), §10.
func TestEncoding_EditUnrepresentableRefused(t *testing.T) {
	root := t.TempDir()
	s := start(t, withRoot(root))
	for _, tc := range []struct{ charset, text, char string }{
		{"WINDOWS-1252", "un café au lait, s’il vous plaît\n", "✓"},
		{"SHIFT_JIS", "// 日本語のコメントです。ファイルを読みます。\n", "한"},
		{"EUC-KR", "// 한국어 주석입니다. 파일을 읽습니다.\n", "😀"},
		{"BIG5", "// 中文註釋：讀取檔案，然後寫回去。\n", "😀"},
	} {
		old := iconvTo(t, tc.charset, tc.text)
		name := tc.charset + ".txt"
		p := filepath.Join(root, name)
		require.NoError(t, os.WriteFile(p, old, 0o644))
		r := decode[encReadReply](t, s.call(t, "tools/read", map[string]any{"path": name}))
		e := s.callErr(t, "tools/edit", map[string]any{"path": name, "tag": r.Tag,
			"ops": []map[string]any{{"op": "replace", "start": 1, "lines": []string{"x " + tc.char}}}})
		require.Equal(t, "INVALID_ARGUMENT", e.Kind, tc.charset)
		require.Contains(t, e.Message, "'"+tc.char+"'", tc.charset)
		got, _ := os.ReadFile(p)
		require.Equal(t, old, got, "%s: the file is unchanged", tc.charset)
		// tools/write keeps the existing file's encoding and refuses the same way.
		e = s.callErr(t, "tools/write", map[string]any{"path": name, "content": "x " + tc.char + "\n"})
		require.Equal(t, "INVALID_ARGUMENT", e.Kind, tc.charset)
		got, _ = os.ReadFile(p)
		require.Equal(t, old, got, "%s: the file is unchanged", tc.charset)
	}
}

// TestEncoding_WriteNamesEncoding: tools/write with encoding writes iconv's
// bytes; without it an existing file keeps its encoding and a new one is
// UTF-8.
//
// Checks SPEC §4.1 (write), §8.
func TestEncoding_WriteNamesEncoding(t *testing.T) {
	root := t.TempDir()
	s := start(t, withRoot(root))
	forEachSample(t, func(t *testing.T, smp encSample, nl string) {
		name := "w-" + smp.charset + fmt.Sprint(len(nl)) + ".txt"
		text := encText(smp, nl)
		w := decode[writeReply](t, s.call(t, "tools/write", map[string]any{"path": name, "content": text, "encoding": smp.label}))
		require.True(t, w.Created)
		got, err := os.ReadFile(filepath.Join(root, name))
		require.NoError(t, err)
		charset := smp.charset
		if smp.label == "windows-1252" {
			charset = "WINDOWS-1252"
		}
		require.Equal(t, iconvTo(t, charset, text), got)
		require.Equal(t, fileTag(got), w.Tag)
		text2 := smp.newLine + nl + text
		s.call(t, "tools/write", map[string]any{"path": name, "content": text2})
		got, _ = os.ReadFile(filepath.Join(root, name))
		require.Equal(t, iconvTo(t, charset, text2), got, "the existing file's encoding is kept")
	})
	s.call(t, "tools/write", map[string]any{"path": "new.txt", "content": "café\n"})
	got, _ := os.ReadFile(filepath.Join(root, "new.txt"))
	require.Equal(t, "café\n", string(got), "a new file is UTF-8")
	e := s.callErr(t, "tools/write", map[string]any{"path": "bad.txt", "content": "x\n", "encoding": "ebcdic"})
	require.Equal(t, "INVALID_ARGUMENT", e.Kind)
	require.NoFileExists(t, filepath.Join(root, "bad.txt"))
}

// TestEncoding_GrepMatchesDecoded: grep finds café, 日本語 and 中文 in the
// decoded text, at the line numbers read shows, and names each file's
// encoding in content mode.
//
// Checks SPEC §4.1 (grep), §5.
func TestEncoding_GrepMatchesDecoded(t *testing.T) {
	root := t.TempDir()
	words := []string{"café", "日本語", "中文", "한국어"}
	want := map[string]map[string][]int{} // word -> path -> lines
	labels := map[string]string{}         // path -> label
	for _, smp := range encSamples {
		for _, nl := range []string{"\n", "\r\n"} {
			name := smp.charset + fmt.Sprint(len(nl)) + ".txt"
			text := encText(smp, nl)
			require.NoError(t, os.WriteFile(filepath.Join(root, name), iconvTo(t, smp.charset, text), 0o644))
			labels[name] = smp.label
			for _, w := range words {
				for i, l := range strings.Split(text, nl) {
					if strings.Contains(l, w) {
						if want[w] == nil {
							want[w] = map[string][]int{}
						}
						want[w][name] = append(want[w][name], i+1)
					}
				}
			}
		}
	}
	s := start(t, withRoot(root))
	for _, word := range words {
		g := decode[encGrepReply](t, s.call(t, "tools/grep", map[string]any{"pattern": word, "outputMode": "content"}))
		got := map[string][]int{}
		for _, m := range g.Matches {
			got[m.Path] = append(got[m.Path], m.Line)
			require.Contains(t, m.Text, word)
			require.NotContains(t, m.Text, "\r")
		}
		require.Equal(t, want[word], got, word)
		require.Len(t, g.Encodings, len(want[word]), word)
		for name := range want[word] {
			require.Equal(t, labels[name], g.Encodings[name], name)
		}
	}
}

// TestEncoding_ContentIndexEqualsScan: with 5% of a tree in legacy
// encodings, a server with its content index built answers as one without.
//
// Checks SPEC §4.1 (grep), §12 resident indexes.
func TestEncoding_ContentIndexEqualsScan(t *testing.T) {
	root := t.TempDir()
	old := time.Now().Add(-time.Hour)
	for i := range 60 {
		name := fmt.Sprintf("d%d/f%d.txt", i%4, i)
		text := fmt.Sprintf("line %d café\nplain %d 日本語 中文\n", i, i)
		b := []byte(text)
		if i%20 == 7 {
			smp := encSamples[2+i%7]
			b = iconvTo(t, smp.charset, encText(smp, "\r\n"))
		}
		p := filepath.Join(root, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, b, 0o644))
		mt := old.Add(time.Duration(i) * time.Second)
		require.NoError(t, os.Chtimes(p, mt, mt))
	}
	indexed, scan := indexedAndScan(t, root)
	for _, p := range []string{"日本語", "中文", "café", "한국어", "新しい", "first line", `\d+ café`} {
		for _, mode := range []string{"content", "filesWithMatches", "count"} {
			params := map[string]any{"pattern": p, "outputMode": mode}
			a, b := indexed.call(t, "tools/grep", params), scan.call(t, "tools/grep", params)
			require.Equal(t, string(b), string(a), "params %v", params)
			if mode == "content" && p == "first line" {
				var g encGrepReply
				require.NoError(t, json.Unmarshal(a, &g))
				require.NotEmpty(t, g.Encodings, "legacy files are found")
			}
		}
	}
}
