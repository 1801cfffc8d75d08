package page

import (
	"bufio"
	"context"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/lineindex"
	"github.com/toolrpc/toolrpc/internal/sourceset"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/wire"
)

// fixture is a directory of files with the line index cache and the source
// set one session keeps.
type fixture struct {
	dir   string
	cache *lineindex.Cache
	src   *sourceset.Set
}

func newFixture(tb testing.TB) *fixture {
	tb.Helper()
	return &fixture{dir: tb.TempDir(), cache: lineindex.NewCache(limits.LineIndexCacheBytes), src: sourceset.New()}
}

func (f *fixture) write(tb testing.TB, name string, content []byte) string {
	tb.Helper()
	p := filepath.Join(f.dir, name)
	require.NoError(tb, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(tb, os.WriteFile(p, content, 0o644))
	return p
}

// read reads name from offset (0: 1) for limit lines (0: the default).
func (f *fixture) read(tb testing.TB, name string, offset, limit int64) (*wire.ReadResult, error) {
	tb.Helper()
	if offset == 0 {
		offset = 1
	}
	if limit == 0 {
		limit = limits.ReadDefaultLimit
	}
	return Read(context.Background(), filepath.Join(f.dir, name), name, name, offset, limit, f.cache, f.src)
}

func readTestTag(content []byte) string {
	return fmt.Sprintf("%08x", crc32.Checksum(content, crc32.MakeTable(crc32.Castagnoli)))[:4]
}

func TestReadWindow(t *testing.T) {
	long := strings.Repeat("a", limits.MaxLineChars-1) + "€€tail"
	tests := []struct {
		name          string
		content       string
		offset, limit int64 // 0: the default
		wantLines     []string
		wantTotal     int64
		wantTruncated bool
		wantClipped   []int64
		wantNotice    string // regexp; "" = no notice
	}{
		{"whole small file", "one\ntwo\n", 0, 0, []string{"1:one", "2:two"}, 2, false, nil, ""},
		{"no final newline", "one\ntwo", 0, 0, []string{"1:one", "2:two"}, 2, false, nil, ""},
		{"crlf", "one\r\ntwo\r\n", 0, 0, []string{"1:one", "2:two"}, 2, false, nil, ""},
		{"blank lines", "\n\nx\n", 0, 0, []string{"1:", "2:", "3:x"}, 3, false, nil, ""},
		{"empty file", "", 0, 0, nil, 0, false, nil, `^The file is empty \(0 lines\)\.$`},
		{"first page", "1\n2\n3\n4\n5\n", 0, 2, []string{"1:1", "2:2"}, 5, false, nil, `^Lines 1–2 of 5\. Next: offset=3\.$`},
		{"middle page", "1\n2\n3\n4\n5\n", 3, 2, []string{"3:3", "4:4"}, 5, false, nil, `^Lines 3–4 of 5\. Next: offset=5\.$`},
		{"last page short of limit", "1\n2\n3\n4\n5\n", 4, 10, []string{"4:4", "5:5"}, 5, false, nil, `^Lines 4–5 of 5\. End of file\.$`},
		{"offset past end", "1\n2\n", 3, 0, nil, 2, false, nil, `^Offset 3 is past the end of the file, which has 2 lines\.$`},
		{"invalid utf8 is lossy and clipped", "ok\nab\xffcd\n", 0, 0, []string{"1:ok", "2:ab\uFFFDcd"}, 2, true, []int64{2},
			`^1 line with bytes that are not valid UTF-8, shown as U\+FFFD and counted as clipped\.$`},
		{"long line clipped at a character boundary", "x\n" + long + "\ny\n", 0, 0,
			[]string{"1:x", "2:" + strings.Repeat("a", limits.MaxLineChars-1) + "€", "3:y"}, 3, true, []int64{2},
			fmt.Sprintf(`^1 line longer than %d characters clipped`, limits.MaxLineChars)},
		{"line of exactly the maximum", strings.Repeat("é", limits.MaxLineChars) + "\n", 0, 0,
			[]string{"1:" + strings.Repeat("é", limits.MaxLineChars)}, 1, false, nil, ""},
		{"clipped line in a page", "a\n" + long + "\nb\nc\n", 0, 2,
			[]string{"1:a", "2:" + strings.Repeat("a", limits.MaxLineChars-1) + "€"}, 4, true, []int64{2},
			`^Lines 1–2 of 4\. Next: offset=3\. 1 line longer than`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newFixture(t)
			s.write(t, "dir/f.txt", []byte(tc.content))
			got, err := s.read(t, "dir/f.txt", tc.offset, tc.limit)
			require.NoError(t, err)
			tag := readTestTag([]byte(tc.content))
			want := "[dir/f.txt#" + tag + "]\n"
			for _, l := range tc.wantLines {
				want += l + "\n"
			}
			require.Equal(t, want, got.Content)
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
	s := newFixture(t)
	line := strings.Repeat("b", 999)
	s.write(t, "wide.txt", []byte(strings.Repeat(line+"\n", 3000)))
	got, err := s.read(t, "wide.txt", 11, 0)
	require.NoError(t, err)
	require.LessOrEqual(t, len(got.Content), limits.SearchBudgetBytes)
	require.True(t, got.Truncated, "the byte budget shortened the window")
	require.Less(t, got.LineCount, limits.ReadDefaultLimit)
	next := 11 + got.LineCount
	require.Regexp(t, fmt.Sprintf(`^Lines 11–%d of 3000\. Stopped at the %d KB / %d-line result budget after %d of the %d requested lines\. Next: offset=%d\.$`,
		next-1, limits.SearchBudgetBytes/limits.KB, limits.SearchBudgetLines, got.LineCount, limits.ReadDefaultLimit, next), got.Notice)
	// One more line would not have fitted.
	require.Greater(t, len(got.Content)+len(fmt.Sprintf("%d:%s\n", next, line)), limits.SearchBudgetBytes)
	got2, err := s.read(t, "wide.txt", int64(next), 0)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(got2.Content, fmt.Sprintf("[wide.txt#%s]\n%d:", got.Tag, next)))
}

func TestReadSourceSet(t *testing.T) {
	s := newFixture(t)
	long := strings.Repeat("z", limits.MaxLineChars+1)
	content := "1\n2\n" + long + "\n4\nbad\xfe\n6\n7\n"
	p := s.write(t, "f.txt", []byte(content))
	got, err := s.read(t, "f.txt", 0, 6)
	require.NoError(t, err)
	require.Equal(t, []int64{3, 5}, got.ClippedLines)
	for n, want := range map[int]bool{1: true, 2: true, 3: false, 4: true, 5: false, 6: true, 7: false} {
		require.Equal(t, want, s.src.Has(p, got.Tag, n), "line %d", n)
	}
	require.False(t, s.src.Has(p, "0000", 1), "other tags are untouched")
}

func TestReadChangedFile(t *testing.T) {
	s := newFixture(t)
	p := s.write(t, "f.txt", []byte("aaa\nbbb\n"))
	when := time.Date(2021, 5, 6, 7, 8, 9, 0, time.UTC)
	require.NoError(t, os.Chtimes(p, when, when))
	got1, err := s.read(t, "f.txt", 0, 0)
	require.NoError(t, err)
	// Same size and mtime, other content and line count.
	require.NoError(t, os.WriteFile(p, []byte("a\nb\nc\nd\n"), 0o644))
	require.NoError(t, os.Chtimes(p, when, when))
	got2, err := s.read(t, "f.txt", 0, 0)
	require.NoError(t, err)
	require.NotEqual(t, got1.Tag, got2.Tag)
	require.Equal(t, readTestTag([]byte("a\nb\nc\nd\n")), got2.Tag)
	require.Equal(t, int64(4), got2.TotalLines)
	require.Equal(t, "[f.txt#"+got2.Tag+"]\n1:a\n2:b\n3:c\n4:d\n", got2.Content)
}

func TestReadPagesLargeFile(t *testing.T) {
	s := newFixture(t)
	var b strings.Builder
	const lines = 120000
	for i := 1; i <= lines; i++ {
		fmt.Fprintf(&b, "line %d of the file\n", i)
	}
	p := s.write(t, "big.log", []byte(b.String()))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(p, old, old))
	for _, offset := range []int{1, 2001, 60000, 119999, lines + 1} {
		t.Run(fmt.Sprint(offset), func(t *testing.T) {
			got, err := s.read(t, "big.log", int64(offset), 0)
			require.NoError(t, err)
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
	require.Equal(t, 1, s.cache.Len(), "one cached index serves every page")
}

func FuzzReadWindow(f *testing.F) {
	f.Add([]byte("a\r\nb\nc"), int64(1), int64(2))
	f.Add([]byte("x\xff\xfey\n\n"), int64(2), int64(1))
	f.Add([]byte(strings.Repeat("€", limits.MaxLineChars+3)+"\n"), int64(1), int64(4000))
	f.Add([]byte{}, int64(5), int64(1))
	s := newFixture(f)
	p := filepath.Join(s.dir, "f.txt")
	f.Fuzz(func(t *testing.T, content []byte, offset, limit int64) {
		// A fresh source set: two versions may share a 16-bit tag.
		s.src = sourceset.New()
		require.NoError(t, os.WriteFile(p, content, 0o644))
		if offset < 1 || limit < 1 || limit > limits.ReadMaxLimit {
			return // the adapter refuses these before Read
		}
		got, err := s.read(t, "f.txt", offset, limit)
		if err != nil {
			var e *Error
			require.ErrorAs(t, err, &e)
			require.Equal(t, Binary, e.Refusal, e.Msg)
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
				require.False(t, s.src.Has(p, got.Tag, int(no)))
			} else {
				require.Equal(t, want, text)
				require.True(t, s.src.Has(p, got.Tag, int(no)))
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

// readBenchSession returns a fixture on the directory that holds path.
func readBenchSession(b *testing.B, path string) *fixture {
	return &fixture{dir: filepath.Dir(path), cache: lineindex.NewCache(limits.LineIndexCacheBytes), src: sourceset.New()}
}

func readBenchCall(b *testing.B, s *fixture, path string, offset int64) *wire.ReadResult {
	got, err := s.read(b, filepath.Base(path), offset, 0)
	require.NoError(b, err)
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
	s := newFixture(t)
	s.write(t, "a.txt", []byte("a\n"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Read(ctx, filepath.Join(s.dir, "a.txt"), "a.txt", "a.txt", 1, 10, s.cache, s.src)
	require.ErrorIs(t, err, context.Canceled)
}
