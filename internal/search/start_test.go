package search

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/walk"
)

// lineSpans returns the spans of the lines of text whose bit (line number
// modulo 64) is set in pick, adjacent lines joined: ranges of whole lines,
// as MatchSpans gives them. all reports that they cover the whole text.
func lineSpans(text string, pick uint64) (spans [][2]int64, all bool) {
	all = true
	for n, start := 0, 0; start < len(text); n++ {
		end := len(text)
		if i := strings.IndexByte(text[start:], '\n'); i >= 0 {
			end = start + i + 1
		}
		if pick&(1<<(n%64)) == 0 {
			all = false
		} else if k := len(spans); k > 0 && spans[k-1][1] == int64(start) {
			spans[k-1][1] = int64(end)
		} else {
			spans = append(spans, [2]int64{int64(start), int64(end)})
		}
		start = end
	}
	return spans, all
}

// linesIn counts the lines of text holding a match of m that start inside
// one of spans: what a grep reading only the spans must count.
func linesIn(m *Matcher, text []byte, spans [][2]int64) int {
	n := 0
	m.MatchLines(text, func(_, s, _ int) bool {
		for _, sp := range spans {
			if sp[0] <= int64(s) && int64(s) < sp[1] {
				n++
				break
			}
		}
		return true
	})
	return n
}

// FuzzFileSpans: a count grep of the spans of a file (MatchSpans) counts
// exactly the matching lines inside them, whatever the chunk size; a
// filesWithMatches grep answers whether there is one; a content grep, and
// nil spans, read the whole file.
func FuzzFileSpans(f *testing.F) {
	f.Add("a needle\nb\nneedle c\n", "needle", uint64(0b100), 3)
	f.Add("needle\nneedle", "needle", uint64(0b10), 1)
	f.Add("xneedle\n\nneedle\n", "^needle", uint64(0b110), 5)
	f.Add(strings.Repeat("ab\n", 50)+"needle", "e+d", uint64(1)<<50, 7)
	f.Add("one\nlong line with a needle in it\nthree needle\n", "needle", uint64(0b101), 2)
	f.Fuzz(func(t *testing.T, content, pattern string, pick uint64, chunk int) {
		if chunk < 1 || chunk > 1<<16 || !utf8.ValidString(content) || strings.IndexByte(content, 0) >= 0 {
			return
		}
		if enc, bin, _ := walk.SniffText([]byte(content), len(content) <= limits.SniffBytes); bin || enc != nil {
			return // MatchSpans gives spans only of text grep matches undecoded
		}
		m, err := Compile(pattern, false, false)
		if err != nil || m.multiline {
			return
		}
		abs := filepath.Join(t.TempDir(), "f.txt")
		require.NoError(t, os.WriteFile(abs, []byte(content), 0o644))
		file := walk.File{Abs: abs, Size: int64(len(content))}
		spans, _ := lineSpans(content, pick)
		if spans == nil {
			spans = [][2]int64{} // no part of the file: not the whole file
		}
		grep := func(mode Mode, spans [][2]int64) fileResult {
			g := &worker{q: &Query{Mode: mode, Matcher: m, ChunkBytes: chunk}, maxMatches: 1 << 30}
			return g.fileSpans(context.Background(), file, spans)
		}
		want := linesIn(m, []byte(content), spans)
		whole := linesIn(m, []byte(content), [][2]int64{{0, file.Size}})
		require.Equal(t, want, grep(Count, spans).count, "count in %v", spans)
		require.Equal(t, want > 0, grep(FilesWithMatches, spans).count > 0, "files in %v", spans)
		require.Equal(t, whole, grep(Content, spans).count, "content reads the whole file")
		require.Equal(t, whole, grep(Count, nil).count, "nil spans: the whole file")
	})
}

// TestFileSpansDropsTheBOM: a span from the start of a file that begins
// with a UTF-8 BOM is matched without it, as the whole file is.
func TestFileSpansDropsTheBOM(t *testing.T) {
	content := "\ufeffneedle\nx\nneedle\n"
	abs := filepath.Join(t.TempDir(), "bom.txt")
	require.NoError(t, os.WriteFile(abs, []byte(content), 0o644))
	m, err := Compile("^needle", false, false)
	require.NoError(t, err)
	file := walk.File{Abs: abs, Size: int64(len(content))}
	g := &worker{q: &Query{Mode: Count, Matcher: m, ChunkBytes: limits.SearchLineChunkBytes}, maxMatches: 1 << 30}
	require.Equal(t, 2, g.file(context.Background(), file).count, "the whole file")
	require.Equal(t, 1, g.fileSpans(context.Background(), file, [][2]int64{{0, 10}}).count, "its first line")
	require.Equal(t, 2, g.fileSpans(context.Background(), file, [][2]int64{{0, 10}, {12, file.Size}}).count)
	require.Equal(t, 2, g.fileSpans(context.Background(), file, [][2]int64{{0, math.MaxInt64}}).count, "an end past the file's: to its end")
}
