package walk

import (
	"cmp"
	"slices"
	"strings"
	"testing"
)

// byNewestThenRel is the order sortNewestFirstByRel must give.
func byNewestThenRel(a, b File) int {
	if c := cmp.Compare(b.ModTime, a.ModTime); c != 0 {
		return c
	}
	return strings.Compare(a.Rel, b.Rel)
}

// filesOf makes distinct files from data: paths from its bytes over a
// small alphabet around the separator ('-', '.', '/', '0', 'a'), so paths
// share long prefixes and one path is often the prefix of another, and
// times from few values, so runs of equal times are long.
func filesOf(data []byte) []File {
	seen := map[string]bool{}
	var out []File
	var p []byte
	for i, c := range data {
		p = append(p, "-./0a"[c%5])
		if c%7 == 0 || i == len(data)-1 {
			if s := string(p); !seen[s] {
				seen[s] = true
				out = append(out, File{Rel: s, Abs: "/r/" + s, ModTime: int64(c % 3)})
			}
			if c%2 == 0 {
				p = p[:0]
			}
		}
	}
	return out
}

// FuzzSortNewestFirstByRel: sortNewestFirstByRel gives slices.SortFunc's order (newest first, ties
// by Rel) on any distinct paths.
func FuzzSortNewestFirstByRel(f *testing.F) {
	f.Add([]byte("the quick brown fox jumps over the lazy dog, again and again and again"))
	f.Add([]byte{0, 7, 14, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28})
	f.Fuzz(func(t *testing.T, data []byte) {
		got := filesOf(data)
		want := slices.Clone(got)
		slices.SortFunc(want, byNewestThenRel)
		sortNewestFirstByRel(got)
		if !slices.Equal(want, got) {
			t.Fatalf("order differs:\n got %v\nwant %v", got, want)
		}
	})
}

// TestSortNewestFirstByRelLongRuns: thousands of files of one time, whose paths share
// long prefixes, and a few newer ones, come in slices.SortFunc's order.
func TestSortNewestFirstByRelLongRuns(t *testing.T) {
	var files []File
	for i := range 20000 {
		rel := strings.Repeat("dir/", i%4) + "sub" + string(rune('a'+i%3)) + "/f" + strings.Repeat("x", i%5) + string(rune('0'+i%10)) + string(rune('a'+i/10%26)) + string(rune('a'+i/260%26)) + string(rune('a'+i/6760))
		files = append(files, File{Rel: rel, Abs: "/r/" + rel, ModTime: int64(i % 97 / 96)})
	}
	want := slices.Clone(files)
	slices.SortFunc(want, byNewestThenRel)
	sortNewestFirstByRel(files)
	if !slices.Equal(want, files) {
		t.Fatal("order differs from slices.SortFunc")
	}
}
