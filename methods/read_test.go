package methods

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/sourceset"
)

// readTestSession returns a session on a fresh workspace with the given
// external roots.
func readTestSession(t testing.TB, external ...string) *Session {
	t.Helper()
	if external == nil {
		external = []string{}
	}
	s, err := NewSession(Config{Root: t.TempDir(), DataDir: t.TempDir(), SessionID: "read-test"},
		&protocol.InitializeParams{InitializationOptions: map[string]any{"externalRoots": external}})
	require.NoError(t, err)
	return s
}

// readTestCall runs tools/read with raw JSON params.
func readTestCall(t testing.TB, s *Session, params string) (*readResult, *rpc.Error) {
	t.Helper()
	res, err := readCall(context.Background(), s, rpc.NewCall("tools/read", json.RawMessage(`1`), json.RawMessage(params), nil))
	if err != nil {
		return nil, rpc.AsError(err)
	}
	return res.(*readResult), nil
}

func readTestWrite(t testing.TB, s *Session, name string, content []byte) string {
	t.Helper()
	p := filepath.Join(s.Roots.First(), name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, content, 0o644))
	return p
}

func readTestTag(content []byte) string {
	return fmt.Sprintf("%08x", crc32.Checksum(content, crc32.MakeTable(crc32.Castagnoli)))[:4]
}

func TestReadParams(t *testing.T) {
	s := readTestSession(t)
	readTestWrite(t, s, "a.txt", []byte("a\n"))
	tests := []struct {
		name   string
		params string
	}{
		{"null params", `null`},
		{"missing path", `{}`},
		{"empty path", `{"path":""}`},
		{"path not a string", `{"path":5}`},
		{"NUL in path", `{"path":"a\u0000b"}`},
		{"offset zero", `{"path":"a.txt","offset":0}`},
		{"negative offset", `{"path":"a.txt","offset":-3}`},
		{"offset string", `{"path":"a.txt","offset":"2"}`},
		{"fractional offset", `{"path":"a.txt","offset":1.5}`},
		{"limit zero", `{"path":"a.txt","limit":0}`},
		{"limit too large", fmt.Sprintf(`{"path":"a.txt","limit":%d}`, limits.ReadMaxLimit+1)},
		{"limit 5000", `{"path":"a.txt","limit":5000}`},
		{"unknown field", `{"path":"a.txt","lines":3}`},
		{"not an object", `["a.txt"]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, gotErr := readTestCall(t, s, tc.params)
			require.NotNil(t, gotErr)
			require.Equal(t, rpc.InvalidArgument, gotErr.Kind)
			require.Equal(t, int64(rpc.CodeInvalidParams), gotErr.Code)
		})
	}
	t.Run("limits at the edges are accepted", func(t *testing.T) {
		for _, p := range []string{`{"path":"a.txt","limit":1}`, fmt.Sprintf(`{"path":"a.txt","limit":%d}`, limits.ReadMaxLimit), `{"path":"a.txt","offset":1,"limit":null}`} {
			_, gotErr := readTestCall(t, s, p)
			require.Nil(t, gotErr, p)
		}
	})
}

func TestReadWindow(t *testing.T) {
	long := strings.Repeat("a", limits.MaxLineChars-1) + "€€tail"
	tests := []struct {
		name          string
		content       string
		params        string // after "path"
		wantLines     []string
		wantTotal     int64
		wantTruncated bool
		wantClipped   []int64
		wantNotice    string // regexp; "" = no notice
	}{
		{"whole small file", "one\ntwo\n", ``, []string{"1:one", "2:two"}, 2, false, nil, ""},
		{"no final newline", "one\ntwo", ``, []string{"1:one", "2:two"}, 2, false, nil, ""},
		{"crlf", "one\r\ntwo\r\n", ``, []string{"1:one", "2:two"}, 2, false, nil, ""},
		{"blank lines", "\n\nx\n", ``, []string{"1:", "2:", "3:x"}, 3, false, nil, ""},
		{"empty file", "", ``, nil, 0, false, nil, `^The file is empty \(0 lines\)\.$`},
		{"first page", "1\n2\n3\n4\n5\n", `,"limit":2`, []string{"1:1", "2:2"}, 5, false, nil, `^Lines 1–2 of 5\. Next: offset=3\.$`},
		{"middle page", "1\n2\n3\n4\n5\n", `,"offset":3,"limit":2`, []string{"3:3", "4:4"}, 5, false, nil, `^Lines 3–4 of 5\. Next: offset=5\.$`},
		{"last page short of limit", "1\n2\n3\n4\n5\n", `,"offset":4,"limit":10`, []string{"4:4", "5:5"}, 5, false, nil, `^Lines 4–5 of 5\. End of file\.$`},
		{"offset past end", "1\n2\n", `,"offset":3`, nil, 2, false, nil, `^Offset 3 is past the end of the file, which has 2 lines\.$`},
		{"invalid utf8 is lossy and clipped", "ok\nab\xffcd\n", ``, []string{"1:ok", "2:ab\uFFFDcd"}, 2, true, []int64{2},
			`^1 line with bytes that are not valid UTF-8, shown as U\+FFFD and counted as clipped\.$`},
		{"long line clipped at a character boundary", "x\n" + long + "\ny\n", ``,
			[]string{"1:x", "2:" + strings.Repeat("a", limits.MaxLineChars-1) + "€", "3:y"}, 3, true, []int64{2},
			fmt.Sprintf(`^1 line longer than %d characters clipped`, limits.MaxLineChars)},
		{"line of exactly the maximum", strings.Repeat("é", limits.MaxLineChars) + "\n", ``,
			[]string{"1:" + strings.Repeat("é", limits.MaxLineChars)}, 1, false, nil, ""},
		{"clipped line in a page", "a\n" + long + "\nb\nc\n", `,"limit":2`,
			[]string{"1:a", "2:" + strings.Repeat("a", limits.MaxLineChars-1) + "€"}, 4, true, []int64{2},
			`^Lines 1–2 of 4\. Next: offset=3\. 1 line longer than`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := readTestSession(t)
			readTestWrite(t, s, "dir/f.txt", []byte(tc.content))
			got, gotErr := readTestCall(t, s, `{"path":"dir/f.txt"`+tc.params+`}`)
			require.Nil(t, gotErr)
			tag := readTestTag([]byte(tc.content))
			want := "[dir/f.txt#" + tag + "]\n"
			for _, l := range tc.wantLines {
				want += l + "\n"
			}
			require.Equal(t, want, got.Content)
			require.Equal(t, "dir/f.txt", got.Path)
			require.Equal(t, "workspace", string(got.Root))
			require.Equal(t, tag, got.Tag)
			require.Equal(t, len(tc.wantLines), got.LineCount)
			require.Equal(t, tc.wantTotal, got.TotalLines)
			require.Equal(t, int64(len(tc.content)), got.FileBytes)
			require.Equal(t, tc.wantTruncated, got.Truncated)
			require.Equal(t, tc.wantClipped, got.ClippedLines)
			if tc.wantNotice == "" {
				require.Empty(t, got.Notice)
			} else {
				require.Regexp(t, regexp.MustCompile(tc.wantNotice), got.Notice)
			}
			require.True(t, utf8.ValidString(got.Content))
		})
	}
}

func TestReadByteBudget(t *testing.T) {
	s := readTestSession(t)
	line := strings.Repeat("b", 999)
	readTestWrite(t, s, "wide.txt", []byte(strings.Repeat(line+"\n", 3000)))
	got, gotErr := readTestCall(t, s, `{"path":"wide.txt","offset":11}`)
	require.Nil(t, gotErr)
	require.LessOrEqual(t, len(got.Content), limits.SearchBudgetBytes)
	require.True(t, got.Truncated, "the byte budget shortened the window")
	require.Less(t, got.LineCount, limits.ReadDefaultLimit)
	next := 11 + got.LineCount
	require.Regexp(t, fmt.Sprintf(`^Lines 11–%d of 3000\. Stopped at the %d KB / %d-line result budget after %d of the %d requested lines\. Next: offset=%d\.$`,
		next-1, limits.SearchBudgetBytes/limits.KB, limits.SearchBudgetLines, got.LineCount, limits.ReadDefaultLimit, next), got.Notice)
	// One more line would not have fitted.
	require.Greater(t, len(got.Content)+len(fmt.Sprintf("%d:%s\n", next, line)), limits.SearchBudgetBytes)
	got2, gotErr := readTestCall(t, s, fmt.Sprintf(`{"path":"wide.txt","offset":%d}`, next))
	require.Nil(t, gotErr)
	require.True(t, strings.HasPrefix(got2.Content, fmt.Sprintf("[wide.txt#%s]\n%d:", got.Tag, next)))
}

func TestReadErrors(t *testing.T) {
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("s\n"), 0o644))
	s := readTestSession(t, "/dev")
	root := s.Roots.First()
	readTestWrite(t, s, "src/main.go", []byte("package main\n"))
	readTestWrite(t, s, "src/mains.go", []byte("package main\n"))
	readTestWrite(t, s, "src/util.go", []byte("package main\n"))
	readTestWrite(t, s, "logo.png", []byte("not really an image\n"))
	readTestWrite(t, s, "nul.txt", []byte("abc\x00def\n"))
	readTestWrite(t, s, "utf16.txt", []byte{'h', 0, 'i', 0}) // no BOM: the NUL rule stands (SPEC §4.1)
	readTestWrite(t, s, "ctrl.txt", []byte(strings.Repeat("\x01\x02a", 100)))
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "escape.txt")))
	require.NoError(t, os.Symlink("logo.png", filepath.Join(root, "logo-link")))
	tests := []struct {
		name     string
		path     string
		wantKind string
		wantData map[string]any // subset of data
	}{
		{"directory", "src", rpc.IsDirectory, nil},
		{"workspace root", ".", rpc.IsDirectory, nil},
		{"missing with suggestions", "src/mian.go", rpc.NotFound,
			map[string]any{"path": "src/mian.go", "suggestions": []any{"src/main.go", "src/mains.go"}}},
		{"missing in missing dir", "nodir/x.go", rpc.NotFound, map[string]any{"suggestions": []any{}}},
		{"fifo refused without blocking", "pipe", rpc.InvalidArgument, map[string]any{"fileType": "named pipe"}},
		{"device refused", "/dev/null", rpc.InvalidArgument, map[string]any{"path": "/dev/null", "fileType": "character device"}},
		{"binary extension", "logo.png", rpc.BinaryContent,
			map[string]any{"path": "logo.png", "fileBytes": float64(20), "reason": "extension .png"}},
		{"binary extension through a link", "logo-link", rpc.BinaryContent, map[string]any{"reason": "extension .png"}},
		{"NUL byte", "nul.txt", rpc.BinaryContent, map[string]any{"reason": "NUL byte at offset 3", "fileBytes": float64(8)}},
		{"utf16", "utf16.txt", rpc.BinaryContent, map[string]any{"reason": "NUL byte at offset 1"}},
		{"control bytes", "ctrl.txt", rpc.BinaryContent, map[string]any{"reason": "67% non-printable bytes in the first 300"}},
		{"dotdot escape", "../x.txt", rpc.PermissionDenied, nil},
		{"absolute outside", filepath.Join(outside, "secret.txt"), rpc.PermissionDenied, nil},
		{"symlink pointing outside", "escape.txt", rpc.PermissionDenied, nil},
		{"NUL in path", "a\x00b", rpc.InvalidArgument, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			params, err := json.Marshal(map[string]any{"path": tc.path})
			require.NoError(t, err)
			_, gotErr := readTestCall(t, s, string(params))
			require.NotNil(t, gotErr)
			require.Equal(t, tc.wantKind, gotErr.Kind, gotErr.Message)
			if tc.wantData != nil {
				b, err := json.Marshal(gotErr.Data)
				require.NoError(t, err)
				var gotData map[string]any
				require.NoError(t, json.Unmarshal(b, &gotData))
				for k, v := range tc.wantData {
					require.Equal(t, v, gotData[k], k)
				}
			}
		})
	}
}

func TestReadRoots(t *testing.T) {
	ext := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ext, "lib.txt"), []byte("ext\n"), 0o644))
	s := readTestSession(t, ext)
	readTestWrite(t, s, "a/b.txt", []byte("ws\n"))
	scratch := s.Roots.ScratchDir()
	require.NoError(t, os.MkdirAll(scratch, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(scratch, "spill.log"), []byte("sc\n"), 0o600))
	extEv, err := filepath.EvalSymlinks(ext)
	require.NoError(t, err)
	tests := []struct {
		name, path, wantPath, wantRoot string
	}{
		{"relative", "a/b.txt", "a/b.txt", "workspace"},
		{"absolute inside", filepath.Join(s.Roots.First(), "a", "b.txt"), "a/b.txt", "workspace"},
		{"dot segments", "a/../a/./b.txt", "a/b.txt", "workspace"},
		{"external", filepath.Join(ext, "lib.txt"), filepath.Join(extEv, "lib.txt"), "external"},
		{"scratch", filepath.Join(scratch, "spill.log"), filepath.Join(scratch, "spill.log"), "scratch"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			params, err := json.Marshal(map[string]any{"path": tc.path})
			require.NoError(t, err)
			got, gotErr := readTestCall(t, s, string(params))
			require.Nil(t, gotErr)
			require.Equal(t, tc.wantPath, got.Path)
			require.Equal(t, tc.wantRoot, string(got.Root))
			require.True(t, strings.HasPrefix(got.Content, "["+tc.wantPath+"#"))
		})
	}
}

func TestReadSourceSet(t *testing.T) {
	s := readTestSession(t)
	long := strings.Repeat("z", limits.MaxLineChars+1)
	content := "1\n2\n" + long + "\n4\nbad\xfe\n6\n7\n"
	p := readTestWrite(t, s, "f.txt", []byte(content))
	got, gotErr := readTestCall(t, s, `{"path":"f.txt","limit":6}`)
	require.Nil(t, gotErr)
	require.Equal(t, []int64{3, 5}, got.ClippedLines)
	for n, want := range map[int]bool{1: true, 2: true, 3: false, 4: true, 5: false, 6: true, 7: false} {
		require.Equal(t, want, s.Sources.Has(p, got.Tag, n), "line %d", n)
	}
	require.False(t, s.Sources.Has(p, "0000", 1), "other tags are untouched")
}

func TestReadChangedFile(t *testing.T) {
	s := readTestSession(t)
	p := readTestWrite(t, s, "f.txt", []byte("aaa\nbbb\n"))
	when := time.Date(2021, 5, 6, 7, 8, 9, 0, time.UTC)
	require.NoError(t, os.Chtimes(p, when, when))
	got1, gotErr := readTestCall(t, s, `{"path":"f.txt"}`)
	require.Nil(t, gotErr)
	// Same size and mtime, other content and line count.
	require.NoError(t, os.WriteFile(p, []byte("a\nb\nc\nd\n"), 0o644))
	require.NoError(t, os.Chtimes(p, when, when))
	got2, gotErr := readTestCall(t, s, `{"path":"f.txt"}`)
	require.Nil(t, gotErr)
	require.NotEqual(t, got1.Tag, got2.Tag)
	require.Equal(t, readTestTag([]byte("a\nb\nc\nd\n")), got2.Tag)
	require.Equal(t, int64(4), got2.TotalLines)
	require.Equal(t, "[f.txt#"+got2.Tag+"]\n1:a\n2:b\n3:c\n4:d\n", got2.Content)
}

func TestReadPagesLargeFile(t *testing.T) {
	s := readTestSession(t)
	var b strings.Builder
	const lines = 120000
	for i := 1; i <= lines; i++ {
		fmt.Fprintf(&b, "line %d of the file\n", i)
	}
	p := readTestWrite(t, s, "big.log", []byte(b.String()))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(p, old, old))
	for _, offset := range []int{1, 2001, 60000, 119999, lines + 1} {
		t.Run(fmt.Sprint(offset), func(t *testing.T) {
			got, gotErr := readTestCall(t, s, fmt.Sprintf(`{"path":"big.log","offset":%d}`, offset))
			require.Nil(t, gotErr)
			require.Equal(t, int64(lines), got.TotalLines)
			require.False(t, got.Truncated)
			wantCount := min(limits.ReadDefaultLimit, lines-offset+1)
			require.Equal(t, wantCount, got.LineCount)
			body := strings.SplitAfter(got.Content, "\n")
			if wantCount > 0 {
				require.Equal(t, fmt.Sprintf("%d:line %d of the file\n", offset, offset), body[1])
				last := offset + wantCount - 1
				require.Equal(t, fmt.Sprintf("%d:line %d of the file\n", last, last), body[wantCount])
			}
		})
	}
	require.Equal(t, 1, s.Lines.Len(), "one cached index serves every page")
}

func TestReadDescription(t *testing.T) {
	d := mustLookup("tools/read").Description
	for _, n := range []int{limits.ReadDefaultLimit, limits.ReadMaxLimit, limits.MaxLineChars, limits.SearchBudgetBytes / limits.KB} {
		require.Contains(t, d, fmt.Sprint(n))
	}
	var schema map[string]any
	require.NoError(t, json.Unmarshal(mustLookup("tools/read").InputSchema, &schema))
}

func FuzzReadWindow(f *testing.F) {
	f.Add([]byte("a\r\nb\nc"), int64(1), int64(2))
	f.Add([]byte("x\xff\xfey\n\n"), int64(2), int64(1))
	f.Add([]byte(strings.Repeat("€", limits.MaxLineChars+3)+"\n"), int64(1), int64(4000))
	f.Add([]byte{}, int64(5), int64(1))
	s := readTestSession(f)
	p := filepath.Join(s.Roots.First(), "f.txt")
	f.Fuzz(func(t *testing.T, content []byte, offset, limit int64) {
		// A fresh source set: two versions may share a 16-bit tag.
		s.Sources = sourceset.New()
		require.NoError(t, os.WriteFile(p, content, 0o644))
		got, gotErr := readTestCall(t, s, fmt.Sprintf(`{"path":"f.txt","offset":%d,"limit":%d}`, offset, limit))
		if offset < 1 || limit < 1 || limit > limits.ReadMaxLimit {
			require.NotNil(t, gotErr)
			require.Equal(t, rpc.InvalidArgument, gotErr.Kind)
			return
		}
		if gotErr != nil {
			require.Equal(t, rpc.BinaryContent, gotErr.Kind, gotErr.Message)
			return
		}
		require.True(t, utf8.ValidString(got.Content))
		require.LessOrEqual(t, len(got.Content), limits.SearchBudgetBytes)
		require.Equal(t, readTestTag(content), got.Tag)
		require.Equal(t, int64(len(content)), got.FileBytes)
		lines := strings.Split(string(content), "\n")
		if len(content) > 0 && content[len(content)-1] == '\n' {
			lines = lines[:len(lines)-1]
		}
		if len(content) == 0 {
			lines = nil
		}
		require.Equal(t, int64(len(lines)), got.TotalLines)
		body := strings.Split(strings.TrimSuffix(got.Content, "\n"), "\n")[1:]
		require.Equal(t, got.LineCount, len(body))
		clipped := map[int64]bool{}
		for _, c := range got.ClippedLines {
			clipped[c] = true
		}
		for i, l := range body {
			no := offset + int64(i)
			prefix := fmt.Sprintf("%d:", no)
			require.True(t, strings.HasPrefix(l, prefix))
			text := l[len(prefix):]
			require.LessOrEqual(t, utf8.RuneCountInString(text), limits.MaxLineChars)
			want := lines[no-1]
			if int(no) < len(lines) || content[len(content)-1] == '\n' {
				want = strings.TrimSuffix(want, "\r") // only "\r\n" is an ending
			}
			if clipped[no] {
				require.False(t, s.Sources.Has(p, got.Tag, int(no)))
			} else {
				require.Equal(t, want, text)
				require.True(t, s.Sources.Has(p, got.Tag, int(no)))
			}
		}
		require.Equal(t, len(got.ClippedLines) > 0 || (got.LineCount < int(limit) && offset+int64(got.LineCount) <= got.TotalLines), got.Truncated)
	})
}

// readBenchFile is the ~1 GB, ~40M-line file the benchmarks page through; it
// is generated under the temp dir on first use, never in the repository.
var readBenchFile = filepath.Join(os.TempDir(), "toolrpc-bench", "lines-1g.txt")

// readBenchEnsure generates path with lines lines (of 1..49 bytes of text,
// about 25 on average) unless it exists, and dates it an hour back so the line
// index cache trusts it.
func readBenchEnsure(b *testing.B, path string, lines int) os.FileInfo {
	b.Helper()
	if fi, err := os.Stat(path); err == nil {
		return fi
	}
	if testing.Short() {
		b.Skip("no benchmark file and -short given")
	}
	require.NoError(b, os.MkdirAll(filepath.Dir(path), 0o755))
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	require.NoError(b, err)
	w := bufio.NewWriterSize(f, 1<<20)
	filler := strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMN", 2)
	for i := 0; i < lines; i++ {
		n := 1 + (i*7919)%49
		w.WriteString(filler[i%50 : i%50+n])
		w.WriteByte('\n')
	}
	require.NoError(b, w.Flush())
	require.NoError(b, f.Close())
	old := time.Now().Add(-time.Hour)
	require.NoError(b, os.Chtimes(tmp, old, old))
	require.NoError(b, os.Rename(tmp, path))
	fi, err := os.Stat(path)
	require.NoError(b, err)
	return fi
}

// readBenchSession returns a session whose external root holds path.
func readBenchSession(b *testing.B, path string) *Session {
	return readTestSession(b, filepath.Dir(path))
}

func readBenchCall(b *testing.B, s *Session, path string, offset int64) *readResult {
	got, gotErr := readTestCall(b, s, fmt.Sprintf(`{"path":%q,"offset":%d}`, path, offset))
	require.Nil(b, gotErr)
	return got
}

// BenchmarkReadLastPageCold reads the last page of the 1 GB file with an
// empty index cache each time, and runs `wc -l` on the same file in the same
// loop; the metric x-wc is the ratio of the two.
func BenchmarkReadLastPageCold(b *testing.B) {
	readBenchEnsure(b, readBenchFile, 40_000_000)
	total := readBenchCall(b, readBenchSession(b, readBenchFile), readBenchFile, 1).TotalLines
	var readTime, wcTime time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := readBenchSession(b, readBenchFile)
		t0 := time.Now()
		got := readBenchCall(b, s, readBenchFile, total-limits.ReadDefaultLimit+1)
		readTime += time.Since(t0)
		require.Equal(b, limits.ReadDefaultLimit, got.LineCount)
		b.StopTimer()
		t1 := time.Now()
		out, err := exec.Command("wc", "-l", readBenchFile).Output()
		wcTime += time.Since(t1)
		require.NoError(b, err)
		require.True(b, strings.HasPrefix(string(out), strconv.FormatInt(total, 10)+" "), "wc agrees on the line count: %s", out)
		b.StartTimer()
	}
	b.ReportMetric(float64(wcTime.Nanoseconds())/float64(b.N), "wc-ns/op")
	b.ReportMetric(float64(readTime)/float64(wcTime), "x-wc")
}

// BenchmarkReadLaterPage reads pages spread over the 1 GB file once its index
// is cached.
func BenchmarkReadLaterPage(b *testing.B) {
	readBenchEnsure(b, readBenchFile, 40_000_000)
	s := readBenchSession(b, readBenchFile)
	total := readBenchCall(b, s, readBenchFile, 1).TotalLines
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		offset := 1 + (int64(i)*7_654_321)%(total-limits.ReadDefaultLimit)
		got := readBenchCall(b, s, readBenchFile, offset)
		if got.LineCount != limits.ReadDefaultLimit {
			b.Fatalf("offset %d: %d lines", offset, got.LineCount)
		}
	}
}

// BenchmarkReadSingleLine4MB reads a 4.2 MB file that is one line.
func BenchmarkReadSingleLine4MB(b *testing.B) {
	path := filepath.Join(os.TempDir(), "toolrpc-bench", "single-4m.txt")
	if _, err := os.Stat(path); err != nil {
		require.NoError(b, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(b, os.WriteFile(path, []byte(strings.Repeat("0123456789", 420_000)), 0o644))
	}
	s := readBenchSession(b, path)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		got := readBenchCall(b, s, path, 1)
		if len(got.ClippedLines) != 1 {
			b.Fatalf("clipped %v", got.ClippedLines)
		}
	}
}

func TestReadCancelled(t *testing.T) {
	s := readTestSession(t)
	readTestWrite(t, s, "a.txt", []byte("a\n"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := readCall(ctx, s, rpc.NewCall("tools/read", json.RawMessage(`1`), json.RawMessage(`{"path":"a.txt"}`), nil))
	require.Equal(t, rpc.Cancelled, rpc.AsError(err).Kind)
}
