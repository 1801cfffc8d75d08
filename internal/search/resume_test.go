package search

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/filetable"
	"github.com/toolrpc/toolrpc/limits"
)

// resumeTree is a tree of real files whose paths are long enough that a
// page stops at the result budget after a few hundred entries, behind a
// file table with inotify.
type resumeTree struct {
	root  string
	set   *filetable.Set
	files []string
}

func newResumeTree(t testing.TB, r *rand.Rand, n int) *resumeTree {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	rt := &resumeTree{root: root}
	require.NoError(t, os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.log\n"), 0o644))
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("d%d", r.Intn(5)), strings.Repeat("s", 20+r.Intn(200)))
		name := fmt.Sprintf("f%04d_%s.txt", i, strings.Repeat("n", r.Intn(200)))
		if r.Intn(20) == 0 {
			name = fmt.Sprintf("f%04d.log", i)
		}
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		var b strings.Builder
		for range r.Intn(6) {
			b.WriteString([]string{"x\n", "y\n", "xx y\n"}[r.Intn(3)])
		}
		require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
		mt := time.Unix(1700000000+int64(r.Intn(50)), 0)
		require.NoError(t, os.Chtimes(p, mt, mt))
		rt.files = append(rt.files, p)
	}
	rt.set = filetable.NewSet([]string{root}, t.Logf)
	t.Cleanup(rt.set.Close)
	return rt
}

// grep runs q at offset with headLimit, continuing with res (nil: none),
// and returns the result as JSON and its number of entries.
func (rt *resumeTree) grep(t *testing.T, q Query, res *Resumes, offset, head int) (string, int, bool) {
	t.Helper()
	q.Offset, q.HeadLimit, q.Resume, q.List = offset, head, res, rt.set.Walk
	r, err := grepIn(&q, rt.root, rt.root, func(abs string) string { return abs[len(rt.root)+1:] }, nil)
	require.NoError(t, err)
	b, err := json.Marshal(r)
	require.NoError(t, err)
	if r.Counts != nil {
		return string(b), len(r.Counts.Counts), r.Counts.Truncated
	}
	return string(b), len(r.Files.Files), r.Files.Truncated
}

func resumeQuery(t *testing.T, mode Mode, pattern, glob string) Query {
	m, err := Compile(pattern, false, false)
	require.NoError(t, err)
	return Query{Mode: mode, Matcher: m, Glob: glob, ChunkBytes: limits.SearchLineChunkBytes}
}

// TestGrepResumeMatchesFresh pages through broad answers, with random
// headLimits and pages that stop at the budget, and requires every page
// that continues the previous one to equal the page searched from the
// first file, byte for byte, notices included.
func TestGrepResumeMatchesFresh(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	rt := newResumeTree(t, r, 1500)
	for _, mode := range []Mode{Count, FilesWithMatches} {
		for _, glob := range []string{"", "d[0-3]/**"} {
			q := resumeQuery(t, mode, "x", glob)
			res := &Resumes{}
			q.Resume = res
			q.Start, q.Boundary = rt.root, rt.root
			key, ok := q.keyOf()
			require.True(t, ok)
			offset, pages, resumed := 0, 0, 0
			for {
				head := []int{1 + r.Intn(5), 1 + r.Intn(300), 1 << 20}[r.Intn(3)]
				if res.has(key, offset) {
					resumed++
				}
				want, _, _ := rt.grep(t, q, nil, offset, head)
				got, n, more := rt.grep(t, q, res, offset, head)
				require.Equal(t, want, got, "mode %d glob %q page %d offset %d headLimit %d", mode, glob, pages, offset, head)
				pages++
				if !more {
					break
				}
				offset += n
			}
			require.Greater(t, pages, 1)
			if st, ok := rt.set.Stats(rt.root); ok && st.State == "live" {
				require.Equal(t, pages-1, resumed, "every page but the first continued the previous one")
			} else {
				// The portable build (and a system without inotify) has no
				// file table: every listing walks, and no walk is versioned.
				require.Zero(t, resumed, "a page continued a listing no table versioned")
			}
		}
	}
}

// TestGrepResumeSeesChanges changes the tree between two pages (an edit
// that keeps the file's size and time, a new file, a removed one) and
// requires the second page to equal the page searched from the first file.
func TestGrepResumeSeesChanges(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	rt := newResumeTree(t, r, 1200)
	changes := map[string]func(t *testing.T){
		"edit keeping size and time": func(t *testing.T) {
			for _, p := range rt.files {
				b, err := os.ReadFile(p)
				require.NoError(t, err)
				if !strings.Contains(string(b), "x") || strings.HasSuffix(p, ".log") {
					continue
				}
				fi, err := os.Stat(p)
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(p, []byte(strings.ReplaceAll(string(b), "x", "z")), 0o644))
				require.NoError(t, os.Chtimes(p, fi.ModTime(), fi.ModTime()))
				return
			}
		},
		"new file": func(t *testing.T) {
			p := filepath.Join(rt.root, "d0", "new.txt")
			require.NoError(t, os.WriteFile(p, []byte("x\n"), 0o644))
			mt := time.Unix(1700000100, 0)
			require.NoError(t, os.Chtimes(p, mt, mt))
		},
		"removed file": func(t *testing.T) {
			for i, p := range rt.files {
				if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), "x") && !strings.HasSuffix(p, ".log") {
					require.NoError(t, os.Remove(p))
					rt.files = append(rt.files[:i], rt.files[i+1:]...)
					return
				}
			}
		},
	}
	for _, name := range []string{"edit keeping size and time", "new file", "removed file"} {
		for _, mode := range []Mode{Count, FilesWithMatches} {
			q := resumeQuery(t, mode, "x", "")
			res := &Resumes{}
			_, n, more := rt.grep(t, q, res, 0, 1<<20)
			require.True(t, more)
			changes[name](t)
			want, _, _ := rt.grep(t, q, nil, n, 1<<20)
			got, _, _ := rt.grep(t, q, res, n, 1<<20)
			require.Equal(t, want, got, "%s, mode %d", name, mode)
		}
	}
}

// TestGrepResumeOtherQuery requires a page at another offset, or with
// other parameters, to take the normal path.
func TestGrepResumeOtherQuery(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	rt := newResumeTree(t, r, 1200)
	q := resumeQuery(t, Count, "x", "")
	res := &Resumes{}
	_, n, more := rt.grep(t, q, res, 0, 1<<20)
	require.True(t, more)
	for _, other := range []Query{resumeQuery(t, Count, "y", ""), resumeQuery(t, FilesWithMatches, "x", ""), resumeQuery(t, Count, "x", "d1/**")} {
		want, _, _ := rt.grep(t, other, nil, n, 50)
		got, _, _ := rt.grep(t, other, res, n, 50)
		require.Equal(t, want, got, "%+v", other)
	}
	for _, off := range []int{n - 1, n + 1, 0} {
		want, _, _ := rt.grep(t, q, nil, off, 50)
		got, _, _ := rt.grep(t, q, res, off, 50)
		require.Equal(t, want, got, "offset %d", off)
	}
	want, _, _ := rt.grep(t, q, nil, n, 50)
	got, _, _ := rt.grep(t, q, res, n, 50)
	require.Equal(t, want, got)
}

// FuzzGrepResume pages through a broad answer with the headLimits heads
// picks and requires every continued page to equal the page searched from
// the first file.
func FuzzGrepResume(f *testing.F) {
	f.Add([]byte{0, 200, 3, 255}, false, false)
	f.Add([]byte{1, 1, 1, 1, 90}, true, true)
	f.Add([]byte{}, false, true)
	rt := newResumeTree(f, rand.New(rand.NewSource(2)), 900)
	f.Fuzz(func(t *testing.T, heads []byte, files, glob bool) {
		q := resumeQuery(t, Count, "x", "")
		if files {
			q.Mode = FilesWithMatches
		}
		if glob {
			q.Glob = "d[1-4]/**"
		}
		res := &Resumes{}
		offset := 0
		for i := 0; ; i++ {
			head := 1 << 20
			if i < len(heads) && heads[i] != 255 {
				head = 1 + int(heads[i])
			}
			want, _, _ := rt.grep(t, q, nil, offset, head)
			got, n, more := rt.grep(t, q, res, offset, head)
			require.Equal(t, want, got, "page %d offset %d headLimit %d", i, offset, head)
			if !more {
				return
			}
			offset += n
		}
	})
}
