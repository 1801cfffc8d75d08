package lineindex

import (
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// refLines splits b into lines as SPEC §2 does, without their endings.
func refLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, b)
			break
		}
		line := b[:i]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		out = append(out, line)
		b = b[i+1:]
	}
	return out
}

// shrink makes marks dense so small inputs exercise them; it restores the
// package settings when the test ends.
func shrink(t testing.TB, block, lines, bytes, marks int) {
	ob, ol, oy, om := blockBytes, markLines, markBytes, maxMarks
	blockBytes, markLines, markBytes, maxMarks = block, lines, bytes, marks
	t.Cleanup(func() { blockBytes, markLines, markBytes, maxMarks = ob, ol, oy, om })
}

// checkMarks verifies that every mark names a true line start.
func checkMarks(t testing.TB, ix *Index, data []byte) {
	require.Equal(t, Mark{1, 0}, ix.marks[0])
	for i, m := range ix.marks {
		if i > 0 {
			require.Greater(t, m.Line, ix.marks[i-1].Line)
			require.Greater(t, m.Off, ix.marks[i-1].Off)
			require.Equal(t, byte('\n'), data[m.Off-1], "mark %d follows a newline", i)
		}
		require.Less(t, m.Off, int64(len(data)+boolInt(len(data) == 0)), "mark %d starts a line", i)
		require.Equal(t, m.Line-1, int64(bytes.Count(data[:m.Off], []byte{'\n'})), "mark %d line number", i)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestBuild(t *testing.T) {
	tests := []struct {
		name      string
		data      string
		wantLines int64
	}{
		{"empty", "", 0},
		{"one newline", "\n", 1},
		{"no final newline", "a\nb", 2},
		{"final newline", "a\nb\n", 2},
		{"crlf", "a\r\nb\r\n", 2},
		{"lone cr", "a\rb", 1},
		{"blank lines", "\n\n\n", 3},
		{"many", strings.Repeat("line\n", 10000), 10000},
		{"long line", strings.Repeat("x", 100000), 1},
	}
	shrink(t, 64, 10, 256, 1<<20)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ix, err := Build(context.Background(), strings.NewReader(tc.data))
			require.NoError(t, err)
			require.Equal(t, tc.wantLines, ix.Lines)
			require.Equal(t, int64(len(refLines([]byte(tc.data)))), ix.Lines)
			require.Equal(t, int64(len(tc.data)), ix.Size)
			require.Equal(t, crc32.Checksum([]byte(tc.data), crc32.MakeTable(crc32.Castagnoli)), ix.CRC)
			checkMarks(t, ix, []byte(tc.data))
		})
	}
}

func TestBuildThinsMarks(t *testing.T) {
	shrink(t, 16, 1, 1<<30, 8)
	data := []byte(strings.Repeat("abcdefg\n", 5000))
	ix, err := Build(context.Background(), bytes.NewReader(data))
	require.NoError(t, err)
	require.LessOrEqual(t, ix.Marks(), 8)
	require.Greater(t, ix.Marks(), 1)
	checkMarks(t, ix, data)
}

func TestBuildCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Build(ctx, strings.NewReader("a\n"))
	require.ErrorIs(t, err, context.Canceled)
}

func TestNearest(t *testing.T) {
	ix := &Index{Lines: 100, marks: []Mark{{1, 0}, {10, 90}, {50, 600}}}
	tests := []struct {
		line int64
		want Mark
	}{
		{0, Mark{1, 0}}, {1, Mark{1, 0}}, {9, Mark{1, 0}}, {10, Mark{10, 90}},
		{49, Mark{10, 90}}, {50, Mark{50, 600}}, {1000, Mark{50, 600}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.line), func(t *testing.T) {
			require.Equal(t, tc.want, ix.Nearest(tc.line))
		})
	}
}

// scanAll returns what Scan passes from line from on, up to n lines.
func scanAll(t testing.TB, ix *Index, data []byte, from int64, n, prefix int) (nos []int64, lines []string, longs []bool) {
	err := ix.Scan(context.Background(), bytes.NewReader(data), from, prefix, func(no int64, line []byte, long bool) bool {
		nos = append(nos, no)
		lines = append(lines, string(line))
		longs = append(longs, long)
		return len(nos) < n
	})
	require.NoError(t, err)
	return nos, lines, longs
}

func TestScan(t *testing.T) {
	shrink(t, 32, 3, 64, 1<<20)
	long := strings.Repeat("y", 5000)
	data := []byte("one\r\ntwo\n\nfour\n" + long + "\r\nsix\nseven\rstill seven\neight")
	ix, err := Build(context.Background(), bytes.NewReader(data))
	require.NoError(t, err)
	require.Equal(t, int64(8), ix.Lines)
	tests := []struct {
		name      string
		from      int64
		n, prefix int
		wantNos   []int64
		wantLines []string
		wantLongs []bool
	}{
		{"from start", 1, 4, 100, []int64{1, 2, 3, 4}, []string{"one", "two", "", "four"}, []bool{false, false, false, false}},
		{"long line clipped to prefix", 5, 2, 100, []int64{5, 6}, []string{long[:100], "six"}, []bool{true, false}},
		{"long line within prefix", 5, 1, 5000, []int64{5}, []string{long}, []bool{false}},
		{"lone cr stays", 7, 1, 100, []int64{7}, []string{"seven\rstill seven"}, []bool{false}},
		{"last line without newline", 8, 5, 100, []int64{8}, []string{"eight"}, []bool{false}},
		{"past end", 9, 5, 100, nil, nil, nil},
		{"offset zero reads from one", 0, 1, 100, []int64{1}, []string{"one"}, []bool{false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gotNos, gotLines, gotLongs := scanAll(t, ix, data, tc.from, tc.n, tc.prefix)
			require.Equal(t, tc.wantNos, gotNos)
			require.Equal(t, tc.wantLines, gotLines)
			require.Equal(t, tc.wantLongs, gotLongs)
		})
	}
}

func TestScanLongerThanBuffer(t *testing.T) {
	line := strings.Repeat("z", 3<<20) // longer than the scan buffer
	data := []byte("a\n" + line + "\r\nb\n" + line)
	ix, err := Build(context.Background(), bytes.NewReader(data))
	require.NoError(t, err)
	gotNos, gotLines, gotLongs := scanAll(t, ix, data, 1, 10, 1000)
	require.Equal(t, []int64{1, 2, 3, 4}, gotNos)
	require.Equal(t, []string{"a", line[:1000], "b", line[:1000]}, gotLines)
	require.Equal(t, []bool{false, true, false, true}, gotLongs)
	gotNos, _, _ = scanAll(t, ix, data, 3, 1, 1000)
	require.Equal(t, []int64{3}, gotNos, "skipping a long line")
}

func TestScanEveryLine(t *testing.T) {
	shrink(t, 16, 5, 40, 1<<20)
	r := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, "%d:%s", i+1, strings.Repeat("q", r.IntN(60)))
		if r.IntN(4) == 0 {
			b.WriteByte('\r')
		}
		b.WriteByte('\n')
	}
	data := b.Bytes()
	want := refLines(data)
	ix, err := Build(context.Background(), bytes.NewReader(data))
	require.NoError(t, err)
	require.Greater(t, ix.Marks(), 100)
	checkMarks(t, ix, data)
	for from := int64(1); from <= ix.Lines; from += 7 {
		gotNos, gotLines, _ := scanAll(t, ix, data, from, 3, 1000)
		for i, no := range gotNos {
			require.Equal(t, from+int64(i), no)
			require.Equal(t, string(want[no-1]), gotLines[i])
		}
	}
}

func FuzzBuildScan(f *testing.F) {
	f.Add([]byte("a\r\nb\nc"), int64(2), 3)
	f.Add([]byte(""), int64(1), 1)
	f.Add([]byte("\n\n\r\n\r"), int64(3), 1)
	f.Add([]byte(strings.Repeat("abc\n", 100)), int64(77), 2)
	f.Fuzz(func(t *testing.T, data []byte, from int64, prefix int) {
		shrink(t, 8, 3, 16, 6)
		if prefix < 1 || prefix > 1<<16 {
			prefix = 1 + (prefix&0xffff+0xffff)%0xffff
		}
		ix, err := Build(context.Background(), bytes.NewReader(data))
		require.NoError(t, err)
		want := refLines(data)
		require.Equal(t, int64(len(want)), ix.Lines)
		require.LessOrEqual(t, ix.Marks(), 6)
		checkMarks(t, ix, data)
		gotNos, gotLines, gotLongs := scanAll(t, ix, data, from, 4, prefix)
		first := max(from, 1)
		for i, no := range gotNos {
			require.Equal(t, first+int64(i), no)
			w := want[no-1]
			require.Equal(t, len(w) > prefix, gotLongs[i])
			if len(w) > prefix {
				w = w[:prefix]
			}
			require.Equal(t, string(w), gotLines[i])
		}
		if first <= ix.Lines {
			require.Equal(t, min(4, int(ix.Lines-first+1)), len(gotNos))
		} else {
			require.Empty(t, gotNos)
		}
	})
}

func writeFile(t testing.TB, p, s string) os.FileInfo {
	require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
	fi, err := os.Stat(p)
	require.NoError(t, err)
	return fi
}

func openStat(t testing.TB, p string) (*os.File, os.FileInfo) {
	f, err := os.Open(p)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	fi, err := f.Stat()
	require.NoError(t, err)
	return f, fi
}

// age sets p's mtime to one fixed time in the past, so its index is not
// racy and two versions differ only in their ctime.
func age(t testing.TB, p string) {
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	require.NoError(t, os.Chtimes(p, old, old))
}

func TestCacheHitAndChange(t *testing.T) {
	old := racyWindow
	racyWindow = 0
	t.Cleanup(func() { racyWindow = old })
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	writeFile(t, p, "one\ntwo\n")
	age(t, p)
	c := NewCache(1 << 20)
	f, fi := openStat(t, p)
	ix1, err := c.Index(context.Background(), f, fi)
	require.NoError(t, err)
	require.Equal(t, int64(2), ix1.Lines)
	ix2, err := c.Index(context.Background(), f, fi)
	require.NoError(t, err)
	require.Same(t, ix1, ix2, "an unchanged file is served from the cache")

	// Same size, same mtime, other content: ctime still tells them apart.
	writeFile(t, p, "uno\ndos\n")
	age(t, p)
	f, fi = openStat(t, p)
	ix3, err := c.Index(context.Background(), f, fi)
	require.NoError(t, err)
	require.NotSame(t, ix1, ix3)
	require.NotEqual(t, ix1.CRC, ix3.CRC)
}

func TestCacheRacyRebuilds(t *testing.T) {
	old := racyWindow
	racyWindow = time.Hour
	t.Cleanup(func() { racyWindow = old })
	p := filepath.Join(t.TempDir(), "a.txt")
	writeFile(t, p, "one\n")
	c := NewCache(1 << 20)
	f, fi := openStat(t, p)
	ix1, err := c.Index(context.Background(), f, fi)
	require.NoError(t, err)
	ix2, err := c.Index(context.Background(), f, fi)
	require.NoError(t, err)
	require.NotSame(t, ix1, ix2, "a file changed within the racy window is re-indexed")
	require.Equal(t, ix1.CRC, ix2.CRC)
}

func TestCacheBounded(t *testing.T) {
	old := racyWindow
	racyWindow = 0
	t.Cleanup(func() { racyWindow = old })
	dir := t.TempDir()
	c := NewCache(3 * (&Index{marks: make([]Mark, 1)}).cost())
	for i := 0; i < 10; i++ {
		p := filepath.Join(dir, fmt.Sprintf("f%d", i))
		writeFile(t, p, "x\n")
		age(t, p)
		f, fi := openStat(t, p)
		_, err := c.Index(context.Background(), f, fi)
		require.NoError(t, err)
		require.LessOrEqual(t, c.Len(), 3)
		require.LessOrEqual(t, c.used, c.maxBytes)
	}
	require.Equal(t, 3, c.Len())
}

func TestCacheConcurrent(t *testing.T) {
	old := racyWindow
	racyWindow = 0
	t.Cleanup(func() { racyWindow = old })
	p := filepath.Join(t.TempDir(), "a.txt")
	writeFile(t, p, strings.Repeat("line\n", 100000))
	age(t, p)
	c := NewCache(1 << 20)
	var wg sync.WaitGroup
	got := make([]*Index, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f, err := os.Open(p)
			if err != nil {
				return
			}
			defer f.Close()
			fi, err := f.Stat()
			if err != nil {
				return
			}
			got[i], _ = c.Index(context.Background(), f, fi)
		}()
	}
	wg.Wait()
	for _, ix := range got {
		require.NotNil(t, ix)
		require.Equal(t, int64(100000), ix.Lines)
		require.Same(t, got[0], ix, "concurrent requests share one pass")
	}
	require.Equal(t, 1, c.Len())
}

func TestCacheCancelledWaiterRetries(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.txt")
	writeFile(t, p, "a\n")
	c := NewCache(1 << 20)
	f, fi := openStat(t, p)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Index(ctx, f, fi)
	require.ErrorIs(t, err, context.Canceled)
	require.Zero(t, c.Len(), "a failed pass is not cached")
	ix, err := c.Index(context.Background(), f, fi)
	require.NoError(t, err)
	require.Equal(t, int64(1), ix.Lines)
}
