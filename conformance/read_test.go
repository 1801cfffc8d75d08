package conformance

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// readReply is ReadResult of SPEC §4.
type readReply struct {
	Path         string `json:"path"`
	Root         string `json:"root"`
	Content      string `json:"content"`
	Tag          string `json:"tag"`
	Offset       int    `json:"offset"`
	LineCount    int    `json:"lineCount"`
	TotalLines   int    `json:"totalLines"`
	FileBytes    int64  `json:"fileBytes"`
	Truncated    bool   `json:"truncated"`
	ClippedLines []int  `json:"clippedLines"`
	Notice       string `json:"notice"`
}

// readBody splits content into its header and "N:text" lines, checking the
// header's shape and each line's number.
func readBody(t *testing.T, r readReply) (lines []string) {
	t.Helper()
	require.True(t, strings.HasSuffix(r.Content, "\n"), "content ends with a newline")
	parts := strings.Split(strings.TrimSuffix(r.Content, "\n"), "\n")
	require.Equal(t, "["+r.Path+"#"+r.Tag+"]", parts[0])
	require.Regexp(t, `^[0-9a-f]{4}$`, r.Tag)
	for i, l := range parts[1:] {
		prefix := strconv.Itoa(r.Offset+i) + ":"
		require.True(t, strings.HasPrefix(l, prefix), "line %d starts with %q: %.40q", i, prefix, l)
		lines = append(lines, l[len(prefix):])
	}
	require.Len(t, lines, r.LineCount)
	return lines
}

var nextOffset = regexp.MustCompile(`Next: offset=(\d+)\.`)

// TestCriterion05_ReadPagesLargeFile checks SPEC §4 (§11 criterion 5): read
// pages a multi-megabyte file and names the next offset.
func TestCriterion05_ReadPagesLargeFile(t *testing.T) {
	root := t.TempDir()
	const total = 150000
	p := filepath.Join(root, "big.log")
	f, err := os.Create(p)
	require.NoError(t, err)
	w := bufio.NewWriter(f)
	for i := 1; i <= total; i++ {
		fmt.Fprintf(w, "%07d the quick brown fox jumps over the lazy dog\n", i)
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
	fi, err := os.Stat(p)
	require.NoError(t, err)
	require.Greater(t, fi.Size(), int64(5<<20), "a multi-megabyte file")
	s := start(t, withRoot(root))

	first := decode[readReply](t, s.call(t, "tools/read", map[string]any{"path": "big.log"}))
	require.Equal(t, "big.log", first.Path)
	require.Equal(t, "workspace", first.Root)
	require.Equal(t, 1, first.Offset)
	require.Equal(t, 2000, first.LineCount)
	require.Equal(t, total, first.TotalLines)
	require.Equal(t, fi.Size(), first.FileBytes)
	require.False(t, first.Truncated, "a filled window is not truncated")
	require.Empty(t, first.ClippedLines)
	require.Equal(t, "Lines 1–2000 of 150000. Next: offset=2001.", first.Notice)
	lines := readBody(t, first)
	require.Equal(t, "0000001 the quick brown fox jumps over the lazy dog", lines[0])
	require.Equal(t, "0002000 the quick brown fox jumps over the lazy dog", lines[1999])

	// Follow the notice to the next page.
	m := nextOffset.FindStringSubmatch(first.Notice)
	require.NotNil(t, m)
	next, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	second := decode[readReply](t, s.call(t, "tools/read", map[string]any{"path": "big.log", "offset": next, "limit": 2000}))
	require.Equal(t, first.Tag, second.Tag)
	require.Equal(t, 2000, second.LineCount)
	require.False(t, second.Truncated)
	require.Equal(t, "Lines 2001–4000 of 150000. Next: offset=4001.", second.Notice)
	require.Equal(t, "0002001 the quick brown fox jumps over the lazy dog", readBody(t, second)[0])

	// The last page: shorter than asked because the file ends, still not truncated.
	last := decode[readReply](t, s.call(t, "tools/read", map[string]any{"path": "big.log", "offset": total - 99}))
	require.Equal(t, 100, last.LineCount)
	require.False(t, last.Truncated)
	require.Equal(t, "0150000 the quick brown fox jumps over the lazy dog", readBody(t, last)[99])
	require.NotContains(t, last.Notice, "Next:")

	// Past the end: empty window, totalLines in the notice.
	past := decode[readReply](t, s.call(t, "tools/read", map[string]any{"path": "big.log", "offset": total + 1}))
	require.Zero(t, past.LineCount)
	require.False(t, past.Truncated)
	require.Equal(t, "[big.log#"+past.Tag+"]\n", past.Content)
	require.Contains(t, past.Notice, "150000")
}

// TestReadByteBudgetStopsWindow checks SPEC §4: the 128 KB budget stops a
// window and sets truncated.
func TestReadByteBudgetStopsWindow(t *testing.T) {
	root := t.TempDir()
	line := strings.Repeat("w", 2000)
	require.NoError(t, os.WriteFile(filepath.Join(root, "wide.txt"), []byte(strings.Repeat(line+"\n", 500)), 0o644))
	s := start(t, withRoot(root))
	r := decode[readReply](t, s.call(t, "tools/read", map[string]any{"path": "wide.txt"}))
	require.LessOrEqual(t, len(r.Content), 128*1024)
	require.True(t, r.Truncated, "the budget shortened the window")
	require.Equal(t, 65, r.LineCount) // 65 lines of "N:" + 2000 bytes + "\n" fit beside the header
	require.Regexp(t, `^Lines 1–65 of 500\. Stopped at the 128 KB / 4000-line result budget after 65 of the 2000 requested lines\. Next: offset=66\.$`, r.Notice)
}

// TestCriterion06_ReadRejectsBinary checks SPEC §4 (§11 criterion 6): read
// refuses binary content with TOOL_BINARY_CONTENT.
func TestCriterion06_ReadRejectsBinary(t *testing.T) {
	root := t.TempDir()
	files := map[string][]byte{
		"logo.png":    []byte("plain text in a png\n"),
		"ARCHIVE.ZIP": []byte("PK text\n"),
		"blob.txt":    append([]byte("header line\n"), 0, 1, 2, 3),
		"utf16.txt":   {'h', 0, 'e', 0, 'l', 0, 'l', 0, 'o', 0}, // no BOM: with one it is text (SPEC §4.1)
		"program":     append([]byte{0x7f, 'E', 'L', 'F', 2, 1, 1}, make([]byte, 64)...),
		"noise.dat":   []byte(strings.Repeat("\x01\x02\x03\x1b\xff\xfeab", 200)),
	}
	for name, b := range files {
		require.NoError(t, os.WriteFile(filepath.Join(root, name), b, 0o644))
	}
	s := start(t, withRoot(root))
	tests := []struct {
		path       string
		wantReason string
	}{
		{"logo.png", `^extension \.png$`},
		{"ARCHIVE.ZIP", `^extension \.zip$`},
		{"blob.txt", `^NUL byte at offset 12$`},
		{"utf16.txt", `^NUL byte at offset 1$`},
		{"program", `^NUL byte at offset 7$`},
		{"noise.dat", `^\d+% non-printable bytes in the first 1600$`},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			e := s.callErr(t, "tools/read", map[string]any{"path": tc.path})
			require.Equal(t, int64(-32001), e.Code)
			require.Equal(t, "TOOL_BINARY_CONTENT", e.Kind)
			data := decode[struct {
				Code      string `json:"code"`
				Path      string `json:"path"`
				FileBytes int64  `json:"fileBytes"`
				Reason    string `json:"reason"`
			}](t, e.Data)
			require.Equal(t, "TOOL_BINARY_CONTENT", data.Code)
			require.Equal(t, tc.path, data.Path)
			require.Equal(t, int64(len(files[tc.path])), data.FileBytes)
			require.Regexp(t, tc.wantReason, data.Reason)
		})
	}
	t.Run("chinese and emoji text is read", func(t *testing.T) {
		text := strings.Repeat("这是中文文本，用于测试二进制检测。😀🎉🚀\n", 300)
		require.NoError(t, os.WriteFile(filepath.Join(root, "zh.md"), []byte(text), 0o644))
		r := decode[readReply](t, s.call(t, "tools/read", map[string]any{"path": "zh.md", "limit": 1}))
		require.Equal(t, []string{"这是中文文本，用于测试二进制检测。😀🎉🚀"}, readBody(t, r))
	})
}

// TestCriterion04_ReadClipsLongLines checks SPEC §4 (§11 criterion 4): read
// clips lines at 16384 characters and lists them.
func TestCriterion04_ReadClipsLongLines(t *testing.T) {
	root := t.TempDir()
	huge := strings.Repeat("0123456789", 420000) // 4.2 MB, one line, no newline
	require.NoError(t, os.WriteFile(filepath.Join(root, "huge.txt"), []byte(huge), 0o644))
	wide := strings.Repeat("abcdefghij", 2000) // 20,000 characters
	require.NoError(t, os.WriteFile(filepath.Join(root, "mixed.txt"), []byte("short\n"+wide+"\nafter\n"), 0o644))
	s := start(t, withRoot(root))

	t.Run("4.2 MB single line", func(t *testing.T) {
		r := decode[readReply](t, s.call(t, "tools/read", map[string]any{"path": "huge.txt"}))
		require.Equal(t, 1, r.TotalLines)
		require.Equal(t, int64(len(huge)), r.FileBytes)
		lines := readBody(t, r)
		require.Len(t, lines, 1)
		require.Equal(t, 16384, utf8.RuneCountInString(lines[0]))
		require.Equal(t, huge[:16384], lines[0])
		require.Equal(t, []int{1}, r.ClippedLines)
		require.True(t, r.Truncated)
		require.Regexp(t, `\b1 line longer than 16384 characters clipped\b`, r.Notice)
	})
	t.Run("20,000-character line", func(t *testing.T) {
		r := decode[readReply](t, s.call(t, "tools/read", map[string]any{"path": "mixed.txt"}))
		lines := readBody(t, r)
		require.Equal(t, []string{"short", wide[:16384], "after"}, lines)
		require.Equal(t, []int{2}, r.ClippedLines)
		require.True(t, r.Truncated)
		require.Regexp(t, `\b1 line longer than 16384 characters clipped\b`, r.Notice)
	})
	t.Run("a window without the long line is whole", func(t *testing.T) {
		r := decode[readReply](t, s.call(t, "tools/read", map[string]any{"path": "mixed.txt", "offset": 3}))
		require.Equal(t, []string{"after"}, readBody(t, r))
		require.False(t, r.Truncated)
		require.Empty(t, r.ClippedLines)
	})
}

// TestCriterion09_ReadValidUTF8 checks SPEC §4 (§11 criterion 9): read results
// are valid UTF-8.
func TestCriterion09_ReadValidUTF8(t *testing.T) {
	root := t.TempDir()
	straddle := strings.Repeat("a", 16383) + "😀😀" + strings.Repeat("b", 10) // 😀 is character 16384 and 16385
	wideChars := strings.Repeat("é", 20000)
	content := "ok\n" +
		"bad \xff\xfe bytes\n" +
		straddle + "\n" +
		wideChars + "\r\n" +
		"cut \xe2\x82\n" + // a truncated three-byte sequence
		"tail"
	require.NoError(t, os.WriteFile(filepath.Join(root, "mixed.txt"), []byte(content), 0o644))
	s := start(t, withRoot(root))
	raw := s.call(t, "tools/read", map[string]any{"path": "mixed.txt"})
	require.True(t, utf8.Valid(raw), "the result is valid UTF-8 on the wire")
	for _, f := range s.frames() {
		require.True(t, utf8.Valid(f.Raw))
	}
	r := decode[readReply](t, raw)
	require.True(t, utf8.ValidString(r.Content))
	lines := readBody(t, r)
	require.Equal(t, []string{
		"ok",
		"bad \uFFFD\uFFFD bytes",
		strings.Repeat("a", 16383) + "😀",
		strings.Repeat("é", 16384),
		"cut \uFFFD\uFFFD",
		"tail",
	}, lines)
	require.Equal(t, []int{2, 3, 4, 5}, r.ClippedLines)
	require.True(t, r.Truncated)
	require.Regexp(t, `2 lines longer than 16384 characters clipped`, r.Notice)
	require.Regexp(t, `2 lines with bytes that are not valid UTF-8, shown as U\+FFFD`, r.Notice)
}

// TestReadRefusesNonRegularFiles checks SPEC §4: FIFOs and devices are refused.
func TestReadRefusesNonRegularFiles(t *testing.T) {
	root := t.TempDir()
	fifo(t, filepath.Join(root, "fifo"))
	s := start(t, withRoot(root), withExternalRoots("/dev"))
	tests := []struct{ path, wantKind string }{
		{"fifo", "INVALID_ARGUMENT"},
		{"/dev/zero", "INVALID_ARGUMENT"},
		{".", "IS_DIRECTORY"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			e := s.callErr(t, "tools/read", map[string]any{"path": tc.path})
			require.Equal(t, tc.wantKind, e.Kind, e.Message)
		})
	}
	// Nothing blocked: the server still serves.
	require.NoError(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644))
	r := decode[readReply](t, s.call(t, "tools/read", map[string]any{"path": "a.txt"}))
	require.Equal(t, []string{"a"}, readBody(t, r))
}

// TestReadNotFoundSuggests checks SPEC §4, §10: NOT_FOUND suggests similar
// names.
func TestReadNotFoundSuggests(t *testing.T) {
	root := t.TempDir()
	for _, n := range []string{"config.toml", "config.yaml", "config.yml", "config.json", "readme.md"} {
		require.NoError(t, os.WriteFile(filepath.Join(root, n), []byte("x\n"), 0o644))
	}
	s := start(t, withRoot(root))
	e := s.callErr(t, "tools/read", map[string]any{"path": "config.yam"})
	require.Equal(t, int64(-32001), e.Code)
	require.Equal(t, "NOT_FOUND", e.Kind)
	data := decode[struct {
		Suggestions []string `json:"suggestions"`
	}](t, e.Data)
	require.LessOrEqual(t, len(data.Suggestions), 3)
	require.Equal(t, []string{"config.yaml", "config.yml", "config.toml"}, data.Suggestions)
	e = s.callErr(t, "tools/read", map[string]any{"path": "zzzz/qqqq"})
	require.Equal(t, "NOT_FOUND", e.Kind)
}

// TestReadTagTracksChanges checks SPEC §4, §8: the tag names the file's
// version.
func TestReadTagTracksChanges(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "f.txt")
	require.NoError(t, os.WriteFile(p, []byte("one\ntwo\n"), 0o644))
	s := start(t, withRoot(root))
	r1 := decode[readReply](t, s.call(t, "tools/read", map[string]any{"path": "f.txt"}))
	require.NoError(t, os.WriteFile(p, []byte("uno\ndos\n"), 0o644)) // same size
	r2 := decode[readReply](t, s.call(t, "tools/read", map[string]any{"path": "f.txt"}))
	require.NotEqual(t, r1.Tag, r2.Tag)
	require.Equal(t, []string{"uno", "dos"}, readBody(t, r2))
	require.NoError(t, os.WriteFile(p, []byte("1\n2\n3\n"), 0o644))
	r3 := decode[readReply](t, s.call(t, "tools/read", map[string]any{"path": "f.txt"}))
	require.Equal(t, 3, r3.TotalLines)
	require.Equal(t, []string{"1", "2", "3"}, readBody(t, r3))
	var raw map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(s.call(t, "tools/read", map[string]any{"path": "f.txt"}), &raw))
	for _, k := range []string{"path", "root", "content", "tag", "offset", "lineCount", "totalLines", "fileBytes", "truncated"} {
		require.Contains(t, raw, k)
	}
}
