package search

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/sourceset"
)

// overlayTree writes n files of about 8 KB below a temporary root, every
// tenth line holding "needle", and returns the root and the paths.
func overlayTree(tb testing.TB, n int) (string, []string) {
	root := tb.TempDir()
	var paths []string
	for i := range n {
		var b bytes.Buffer
		for l := range 100 {
			if l%10 == 0 {
				fmt.Fprintf(&b, "line %d needle %d\n", l, i)
			} else {
				fmt.Fprintf(&b, "line %d of file %d, padding padding padding padding padding\n", l, i)
			}
		}
		p := filepath.Join(root, fmt.Sprintf("d%d", i%10), fmt.Sprintf("f%d.txt", i))
		require.NoError(tb, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(tb, os.WriteFile(p, b.Bytes(), 0o644))
		paths = append(paths, p)
	}
	return root, paths
}

func overlayQuery(root string, mode Mode, ov Overlay) *Query {
	m, err := Compile("needle", false, false)
	if err != nil {
		panic(err)
	}
	return &Query{Start: root, Boundary: root, Mode: mode, Matcher: m, HeadLimit: 100000, Overlay: ov, Sources: sourceset.New(),
		Display: func(abs string) string { r, _ := filepath.Rel(root, abs); return filepath.ToSlash(r) }}
}

// TestOverlayReplacesFiles checks SPEC §15: grep searches a buffer's text
// instead of its file's, lists it first, finds a buffer with no file, and
// count, filesWithMatches and content agree.
func TestOverlayReplacesFiles(t *testing.T) {
	root, paths := overlayTree(t, 20)
	ov := Overlay{
		paths[7]:                            []byte("no match here\n"),
		paths[3]:                            []byte("a\nneedle in the buffer\n"),
		filepath.Join(root, "new", "x.txt"): []byte("needle only in the editor\n"),
	}
	content, err := Grep(context.Background(), overlayQuery(root, Content, ov))
	require.NoError(t, err)
	ms := content.Content.Matches
	require.Equal(t, "d3/f3.txt", ms[0].Path, "unsaved buffers come first")
	require.Equal(t, 2, ms[0].Line)
	require.Equal(t, "needle in the buffer", ms[0].Text)
	require.Equal(t, "new/x.txt", ms[1].Path)
	for _, m := range ms {
		require.NotEqual(t, "d7/f7.txt", m.Path, "the disk's matches of a buffer without any are not shown")
	}
	count, err := Grep(context.Background(), overlayQuery(root, Count, ov))
	require.NoError(t, err)
	files, err := Grep(context.Background(), overlayQuery(root, FilesWithMatches, ov))
	require.NoError(t, err)
	require.Len(t, files.Files.Files, 20, "19 files on disk less f7, plus f3 and new/x.txt")
	total := 0
	for _, c := range count.Counts.Counts {
		total += c.Count
	}
	require.Equal(t, len(ms), total)
	require.Equal(t, files.Files.Files[0], "d3/f3.txt")
}

// BenchmarkGrepOverlay: a content grep over 2000 files, with 100 of them
// open in the editor with unsaved changes against none.
func BenchmarkGrepOverlay(b *testing.B) {
	root, paths := overlayTree(b, 2000)
	ov := Overlay{}
	for _, p := range paths[:100] {
		text, err := os.ReadFile(p)
		require.NoError(b, err)
		ov[p] = append([]byte("needle typed\n"), text...)
	}
	for _, row := range []struct {
		name string
		ov   Overlay
	}{{"none", nil}, {"100-dirty", ov}} {
		b.Run(row.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, err := Grep(context.Background(), overlayQuery(root, Count, row.ov)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
