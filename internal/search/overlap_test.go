package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/sourceset"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/walk"
)

// TestOverlapEqualsOrderedSearch: a grep that searches files as the walk
// finds them (any mode, with and without context lines) answers, page by page, exactly as
// the same grep searching only in newest-first order after the walk (a
// Lister that never calls Found), also when so many files match that the
// overlap stops searching before the walk ends.
func TestOverlapEqualsOrderedSearch(t *testing.T) {
	root := t.TempDir()
	base := time.Now().Add(-time.Hour)
	n := 2500
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("d%02d", i%37))
		require.NoError(t, os.MkdirAll(dir, 0o755))
		text := "nothing here\n"
		switch {
		case i%11 == 0:
			text = "needle\x00 in a binary file\n"
		case i%5 != 0:
			text = "a needle\nand another needle\r\n"
		}
		p := filepath.Join(dir, fmt.Sprintf("f%04d.txt", i))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		mt := base.Add(time.Duration(i*7919%n) * time.Second)
		require.NoError(t, os.Chtimes(p, mt, mt))
	}
	m, err := Compile("needle", false, false)
	require.NoError(t, err)
	ordered := func(ctx context.Context, opts walk.Options) (walk.Files, error) {
		opts.Found, opts.Open = nil, nil
		files, err := walk.Walk(ctx, opts)
		return walk.FileList(files), err
	}
	display := func(abs string) string { return abs }
	for _, mode := range []Mode{Count, FilesWithMatches, Content} {
		for _, page := range [][3]int{{0, n, 0}, {0, limits.GrepDefaultHeadLimit, 0}, {0, 1000, 0}, {500, 1000, 0}, {0, 2 * n, 1}} {
			t.Run(fmt.Sprintf("mode %d offset %d limit %d context %d", mode, page[0], page[1], page[2]), func(t *testing.T) {
				q := Query{Mode: mode, Matcher: m, Offset: page[0], HeadLimit: page[1], Before: page[2], After: page[2], ChunkBytes: limits.SearchLineChunkBytes}
				oq := q
				oq.List = ordered
				want, err := grepIn(&oq, root, root, display, sourceset.New())
				require.NoError(t, err)
				got, err := grepIn(&q, root, root, display, sourceset.New())
				require.NoError(t, err)
				require.Equal(t, want, got)
			})
		}
	}
}

// TestOverlapLeftToTheIndex: a grep whose Index.Narrows says an index will narrow
// the listing does not search files as the walk finds them (the walk gets
// no Found), while the same grep without an index does; both answer alike.
func TestOverlapLeftToTheIndex(t *testing.T) {
	root := t.TempDir()
	for i := range 50 {
		require.NoError(t, os.WriteFile(filepath.Join(root, fmt.Sprintf("f%02d.txt", i)), []byte("a needle\n"), 0o644))
	}
	m, err := Compile("needle", false, false)
	require.NoError(t, err)
	display := func(abs string) string { return abs }
	for _, narrows := range []bool{false, true} {
		var found bool
		q := Query{Mode: Count, Matcher: m, HeadLimit: limits.GrepDefaultHeadLimit, ChunkBytes: limits.SearchLineChunkBytes,
			Index: keepAll(narrows),
			List: func(ctx context.Context, opts walk.Options) (walk.Files, error) {
				found = opts.Open != nil
				files, err := walk.Walk(ctx, opts)
				return walk.FileList(files), err
			}}
		res, err := grepIn(&q, root, root, display, sourceset.New())
		require.NoError(t, err)
		require.Len(t, res.Counts.Counts, 50)
		require.Equal(t, !narrows, found, "the walk searches as it finds files only when no index narrows (narrows: %v)", narrows)
	}
}

// TestOverlapAlign: the files searched during the walk, in any order, are
// matched to the newest-first listing by path, size and time: a file
// searched twice keeps its last search, a file whose size or time the
// listing no longer has, or that was never searched, is searched again
// (no result), and ties of time are told apart by path. The walk's own
// listing (a FileList of the very path strings searched) is matched by the
// strings' addresses, so a path string made anew there counts as not
// searched; any other listing is matched by path.
func TestOverlapAlign(t *testing.T) {
	res := func(n int) *fileResult { return &fileResult{count: n} }
	path := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "z"} {
		path[n] = strings.Clone("/r/" + n) // one string per path, as a walk makes
	}
	o := &overlap{last: map[uintptr]int32{}}
	for _, d := range []overlapResult{
		{abs: path["c"], size: 1, mtime: 5, r: res(1)},
		{abs: path["a"], size: 1, mtime: 9},
		{abs: path["b"], size: 2, mtime: 5, r: res(2)},
		{abs: path["e"], size: 7, mtime: 3, r: res(9)}, // the listing has another size
		{abs: path["c"], size: 1, mtime: 5, r: res(3)}, // searched again: kept
		{abs: path["f"], size: 1, mtime: 4, r: res(4)}, // the listing has another time
		{abs: path["z"], size: 1, mtime: 1, r: res(5)}, // not listed
	} {
		o.last[addr(d.abs)] = o.done.add(d)
	}
	files := walk.FileList{
		{Abs: path["a"], Size: 1, ModTime: 9},
		{Abs: path["b"], Size: 2, ModTime: 5},
		{Abs: path["c"], Size: 1, ModTime: 5},
		{Abs: path["d"], Size: 1, ModTime: 5}, // never searched
		{Abs: path["f"], Size: 1, ModTime: 2},
		{Abs: path["e"], Size: 8, ModTime: 3},
	}
	walk.SortNewestFirst(files)
	type got struct {
		ok    bool
		count int
	}
	aligned := func(files walk.Files) []got {
		o.align(files, 1)
		var gots []got
		for i := 1; i < files.Len(); i++ {
			r, ok := o.result(i, 1)
			gots = append(gots, got{ok, r.count})
		}
		return gots
	}
	want := []got{{true, 2}, {true, 3}, {false, 0}, {false, 0}, {false, 0}}
	require.Equal(t, want, aligned(files), "the walk's own listing")
	require.Equal(t, want, aligned(madeAnew{files}), "a listing of its own paths")
	anew := slices.Clone(files)
	for i := range anew {
		anew[i].Abs = strings.Clone(anew[i].Abs)
	}
	require.Equal(t, []got{{false, 0}, {false, 0}, {false, 0}, {false, 0}, {false, 0}}, aligned(anew),
		"a FileList of other strings: searched again")
}

// madeAnew is a listing that is not a FileList (as a file table's is).
type madeAnew struct{ walk.FileList }

// keepAll is an Index that drops no file; Narrows reports its value.
type keepAll bool

func (k keepAll) Narrow(_ string, _ *syntax.Regexp, _ int, files walk.Files) walk.Files { return files }
func (k keepAll) Narrows(string, *syntax.Regexp, int) bool                              { return bool(k) }

// TestResultsPages: entries added past several pages are each found at the
// index add returned, and pointers taken earlier stay valid.
func TestResultsPages(t *testing.T) {
	var l results
	first := (*overlapResult)(nil)
	for i := range 3*resultsPage + 7 {
		k := l.add(overlapResult{size: int64(i)})
		require.Equal(t, int32(i), k)
		if i == 0 {
			first = l.at(0)
		}
	}
	require.Equal(t, 3*resultsPage+7, l.n)
	for i := range int32(l.n) {
		require.Equal(t, int64(i), l.at(i).size)
	}
	require.Same(t, first, l.at(0), "a page is never moved")
}
