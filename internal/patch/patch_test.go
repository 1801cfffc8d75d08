package patch

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSeekTriesEachToleranceInOrder(t *testing.T) {
	lines := []string{"  foo  ", "bar", "foo", "wait \u2014 x"}
	cases := []struct {
		name    string
		pattern []string
		at      int
		tol     Tolerance
	}{
		{"exact wins over an earlier loose match", []string{"foo"}, 2, Exact},
		{"trailing whitespace", []string{"  foo"}, 0, TrailingSpace},
		{"indentation", []string{" foo"}, 0, Indent},
		{"punctuation", []string{"wait - x"}, 3, Punctuation},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			at, tol, ok := Seek(lines, tc.pattern, 0, false)
			require.True(t, ok)
			require.Equal(t, tc.at, at)
			require.Equal(t, tc.tol, tol)
		})
	}
	_, _, ok := Seek(lines, []string{"nothing"}, 0, false)
	require.False(t, ok)
}

func TestApplyChunksKeepsBytesOutsideTheChange(t *testing.T) {
	cases := []struct{ name, in, patch, want string }{
		{"crlf stays crlf", "a\r\nb\r\nc\r\n", "@@\n a\n-b\n+B\n+B2\n c", "a\r\nB\r\nB2\r\nc\r\n"},
		{"no final newline stays absent", "a\nb", "@@\n a\n-b\n+B", "a\nB"},
		{"tolerant context keeps the file's bytes", "a  \nb\n", "@@\n a\n-b\n+B", "a  \nB\n"},
		{"tabs kept", "\tx\n\ty\n", "@@\n \tx\n-\ty\n+\tz", "\tx\n\tz\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			chunks, err := ParseUpdateBody(tc.patch)
			require.NoError(t, err)
			got, _, err := ApplyChunks(tc.in, "f", chunks)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestApplyNamesTheFailingHunkAndReturnsNothing(t *testing.T) {
	p, err := Parse("*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** Update File: b\n@@\n-1\n+2\n@@\n-missing\n+3\n*** End Patch")
	require.NoError(t, err)
	res, err := p.Apply(func(name string) (string, bool, error) {
		return map[string]string{"a": "x\n", "b": "1\n"}[name], true, nil
	})
	require.Nil(t, res)
	var h *HunkError
	require.ErrorAs(t, err, &h)
	require.Equal(t, "b", h.Path)
	require.Equal(t, 2, h.Chunk)
	require.Equal(t, 10, h.Line)
	require.Contains(t, err.Error(), "hunk 2 of b (patch line 10): Failed to find expected lines in b:\nmissing")
}

func TestStackedAnchorsNarrowInTurn(t *testing.T) {
	p, err := Parse("*** Begin Patch\n*** Update File: s\n@@ class B\n@@ def f\n-  x\n+  y\n*** End Patch")
	require.NoError(t, err)
	require.Equal(t, []string{"class B", "def f"}, p.Files[0].Chunks[0].Anchors)
	got, _, err := ApplyChunks("class A\ndef f\n  x\nclass B\ndef f\n  x\n", "s", p.Files[0].Chunks)
	require.NoError(t, err)
	require.Equal(t, "class A\ndef f\n  x\nclass B\ndef f\n  y\n", got)
}

func FuzzParse(f *testing.F) {
	f.Add("*** Begin Patch\n*** Add File: a\n+x\n*** Update File: b\n*** Move to: c\n@@ ctx\n a\n-b\n+c\n*** End of File\n*** Delete File: d\n*** End Patch")
	f.Add("<<'EOF'\n*** Begin Patch\n*** Update File: a\n-x\n+y\n*** End Patch\nEOF")
	f.Add("*** Begin Patch\n*** Update File: a\n@@ a\n@@ b\n\n-x\n*** End Patch")
	f.Fuzz(func(t *testing.T, text string) {
		p, err := Parse(text)
		if err != nil {
			return
		}
		for _, file := range p.Files {
			for _, c := range file.Chunks {
				if len(c.Kept) != len(c.New) {
					t.Fatalf("Kept has %d entries for %d new lines", len(c.Kept), len(c.New))
				}
				for i, k := range c.Kept {
					if k >= 0 && c.Old[k] != c.New[i] {
						t.Fatalf("kept line %d is not the old line %d", i, k)
					}
				}
			}
		}
	})
}

func FuzzSeek(f *testing.F) {
	f.Add("a\nb  \nc", "b", 0, false)
	f.Add("x \u2014 y\nz", "x - y", 0, true)
	f.Fuzz(func(t *testing.T, text, pat string, start int, eof bool) {
		lines, pattern := strings.Split(text, "\n"), strings.Split(pat, "\n")
		at, tol, ok := Seek(lines, pattern, start%8, eof)
		if !ok {
			return
		}
		norm := normalizers[tol]
		for j, p := range pattern {
			if norm(lines[at+j]) != norm(p) {
				t.Fatalf("Seek said %v at %d but line %d differs", tol, at, at+j)
			}
		}
		if tol > Exact {
			if i, t2, ok2 := Seek(lines, pattern, start%8, eof); !ok2 || t2 != tol || i != at {
				t.Fatalf("Seek is not deterministic")
			}
		}
	})
}

func FuzzApplyChunks(f *testing.F) {
	f.Add("a\r\nb\r\nc", "@@\n a\n-b\n+B")
	f.Add("x\n\ny\n", "@@\n+z")
	f.Fuzz(func(t *testing.T, text, diff string) {
		chunks, err := ParseUpdateBody(diff)
		if err != nil {
			return
		}
		got, _, err := ApplyChunks(text, "f", chunks)
		if err != nil {
			return
		}
		in := split(text)
		addsEmptyLast := false // an empty last line is the same bytes as a final newline
		for _, c := range chunks {
			addsEmptyLast = addsEmptyLast || len(c.New) > 0 && c.New[len(c.New)-1] == ""
		}
		if len(in.text) > 0 && !in.finalNewline() && strings.HasSuffix(got, "\n") && !addsEmptyLast {
			t.Fatalf("a file without a final newline got one: %q -> %q", text, got)
		}
		if strings.Contains(text, "\r\n") == false && strings.Count(got, "\r\n") > strings.Count(text+diff, "\r") {
			t.Fatalf("CRLF appeared in an LF file: %q -> %q", text, got)
		}
	})
}
