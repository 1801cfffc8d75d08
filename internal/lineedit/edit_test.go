package lineedit

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/sourceset"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/wire"
)

// fixture is a directory of files and the source set of one session.
type fixture struct {
	dir string
	src *sourceset.Set
}

func newFixture(tb testing.TB) *fixture {
	return &fixture{dir: tb.TempDir(), src: sourceset.New()}
}

// file writes content to name, marks every line visible as a Read would, and
// returns its absolute path and tag.
func (f *fixture) file(tb testing.TB, name, content string) (string, string) {
	tb.Helper()
	abs := filepath.Join(f.dir, name)
	require.NoError(tb, os.MkdirAll(filepath.Dir(abs), 0o755))
	require.NoError(tb, os.WriteFile(abs, []byte(content), 0o644))
	tag := sourceset.TagOf([]byte(content))
	f.src.Add(abs, tag, 1, strings.Count(content, "\n")+1)
	return abs, tag
}

// edit runs Edit with params shaped as tools/edit's (path, tag, ops).
func (f *fixture) edit(tb testing.TB, ctx context.Context, params map[string]any) (*wire.EditResult, error) {
	tb.Helper()
	raw, err := json.Marshal(params["ops"])
	require.NoError(tb, err)
	hunks, err := ParseOps(raw)
	require.NoError(tb, err)
	name := params["path"].(string)
	return Edit(ctx, filepath.Join(f.dir, name), name, params["tag"].(string), hunks, f.src)
}

type editTestOp = map[string]any

func itoa(i int) string { return strconv.Itoa(i) }

func requireNoEditTemp(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range ents {
		require.False(t, strings.HasSuffix(e.Name(), ".tmp"), "leftover %s", e.Name())
	}
}

func TestEditApplies(t *testing.T) {
	tests := []struct {
		name    string
		content string
		ops     []editTestOp
		want    string
	}{
		{"replace one", "a\nb\nc\n", []editTestOp{{"op": "replace", "start": 2, "lines": []string{"B"}}}, "a\nB\nc\n"},
		{"replace range by more", "a\nb\nc\nd\n", []editTestOp{{"op": "replace", "start": 2, "end": 3, "lines": []string{"x", "y", "z"}}}, "a\nx\ny\nz\nd\n"},
		{"replace with nothing", "a\nb\nc\n", []editTestOp{{"op": "replace", "start": 2, "lines": []string{}}}, "a\nc\n"},
		{"delete", "a\nb\nc\n", []editTestOp{{"op": "delete", "start": 1, "end": 2}}, "c\n"},
		{"delete all", "a\nb\n", []editTestOp{{"op": "delete", "start": 1, "end": 2}}, ""},
		{"insert before first", "a\n", []editTestOp{{"op": "insert", "start": 0, "lines": []string{"0"}}}, "0\na\n"},
		{"insert after last", "a\nb\n", []editTestOp{{"op": "insert", "start": 2, "lines": []string{"c"}}}, "a\nb\nc\n"},
		{"insert after last, no final newline", "a\nb", []editTestOp{{"op": "insert", "start": 2, "lines": []string{"c"}}}, "a\nb\nc"},
		{"replace last, no final newline", "a\nb", []editTestOp{{"op": "replace", "start": 2, "lines": []string{"B"}}}, "a\nB"},
		{"delete last, no final newline", "a\nb", []editTestOp{{"op": "delete", "start": 2}}, "a"},
		{"crlf kept", "a\r\nb\r\nc\r\n", []editTestOp{{"op": "replace", "start": 2, "lines": []string{"x", "y"}}}, "a\r\nx\r\ny\r\nc\r\n"},
		{"crlf no final newline", "a\r\nb", []editTestOp{{"op": "insert", "start": 2, "lines": []string{"c"}}}, "a\r\nb\r\nc"},
		{"mixed keeps untouched endings", "a\r\nb\nc\r\n", []editTestOp{{"op": "replace", "start": 2, "lines": []string{"B"}}}, "a\r\nB\r\nc\r\n"},
		{"empty file", "", []editTestOp{{"op": "insert", "start": 0, "lines": []string{"x", "y"}}}, "x\ny\n"},
		{"lone cr stays text", "a\rb\nc\n", []editTestOp{{"op": "replace", "start": 2, "lines": []string{"C"}}}, "a\rb\nC\n"},
		{"several ops, any order", "1\n2\n3\n4\n5\n", []editTestOp{
			{"op": "delete", "start": 5},
			{"op": "insert", "start": 0, "lines": []string{"0"}},
			{"op": "replace", "start": 3, "lines": []string{"three"}},
			{"op": "insert", "start": 1, "lines": []string{"1.5"}},
		}, "0\n1\n1.5\n2\nthree\n4\n"},
		{"insert then replace at one position", "a\nb\nc\n", []editTestOp{
			{"op": "replace", "start": 2, "lines": []string{"B"}},
			{"op": "insert", "start": 1, "lines": []string{"ins"}},
		}, "a\nins\nB\nc\n"},
		{"invalid utf-8 untouched lines kept", "\xff\xfe\nb\n", []editTestOp{{"op": "replace", "start": 2, "lines": []string{"ü"}}}, "\xff\xfe\nü\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newFixture(t)
			abs, tag := s.file(t, "f.txt", tc.content)
			res, rerr := s.edit(t, context.Background(), map[string]any{"path": "f.txt", "tag": tag, "ops": tc.ops})
			require.NoError(t, rerr)
			got, err := os.ReadFile(abs)
			require.NoError(t, err)
			require.Equal(t, tc.want, string(got))
			require.Equal(t, sourceset.TagOf([]byte(tc.want)), res.Tag)
			require.True(t, strings.HasPrefix(res.Content, "[f.txt#"+res.Tag+"]\n"), res.Content)
		})
	}
}

func TestEditResultShowsContextAndExtendsSourceSet(t *testing.T) {
	s := newFixture(t)
	var b strings.Builder
	for i := 1; i <= 20; i++ {
		b.WriteString("line" + itoa(i) + "\n")
	}
	abs := filepath.Join(s.dir, "f.txt")
	require.NoError(t, os.WriteFile(abs, []byte(b.String()), 0o644))
	tag := sourceset.TagOf([]byte(b.String()))
	s.src.Add(abs, tag, 1, 10) // lines 11..20 never shown

	res, rerr := s.edit(t, context.Background(), map[string]any{"path": "f.txt", "tag": tag, "ops": []editTestOp{
		{"op": "replace", "start": 5, "lines": []string{"five", "five.5"}},
	}})
	require.NoError(t, rerr)
	require.Equal(t, "[f.txt#"+res.Tag+"]\n3:line3\n4:line4\n5:five\n6:five.5\n7:line6\n8:line7\n", res.Content)
	require.Equal(t, 21, res.TotalLines)

	// Old lines 1..10 shifted (11 is old 10); shown lines; old 11.. still unseen.
	for n := 1; n <= 11; n++ {
		require.True(t, s.src.Has(abs, res.Tag, n), "line %d", n)
	}
	require.False(t, s.src.Has(abs, res.Tag, 12))
	require.Empty(t, s.src.Spans(abs, tag), "the old version is forgotten")

	_, rerr = s.edit(t, context.Background(), map[string]any{"path": "f.txt", "tag": res.Tag, "ops": []editTestOp{
		{"op": "delete", "start": 11, "end": 12},
	}})
	var e *Error
	require.ErrorAs(t, rerr, &e)
	require.Equal(t, NotVisible, e.Refusal)
	require.Equal(t, []int{12}, e.Lines)
}

func TestEditKeepsMode(t *testing.T) {
	s := newFixture(t)
	abs, tag := s.file(t, "run.sh", "#!/bin/sh\necho hi\n")
	require.NoError(t, os.Chmod(abs, 0o750))
	_, rerr := s.edit(t, context.Background(), map[string]any{"path": "run.sh", "tag": tag,
		"ops": []editTestOp{{"op": "replace", "start": 2, "lines": []string{"echo bye"}}}})
	require.NoError(t, rerr)
	fi, err := os.Stat(abs)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o750), fi.Mode().Perm())
}

// A line the edit result had to clip is not editable afterwards.
func TestEditClippedResultLineNotEditable(t *testing.T) {
	s := newFixture(t)
	_, tag := s.file(t, "f.txt", "a\nb\n")
	long := strings.Repeat("é", limits.MaxLineChars+1)
	res, rerr := s.edit(t, context.Background(), map[string]any{"path": "f.txt", "tag": tag,
		"ops": []editTestOp{{"op": "insert", "start": 1, "lines": []string{long}}}})
	require.NoError(t, rerr)
	require.Equal(t, []int{2}, res.ClippedLines)
	require.Contains(t, res.Content, "\n2:"+strings.Repeat("é", limits.MaxLineChars)+"\n")
	require.Contains(t, res.Notice, "1 line clipped")

	_, rerr = s.edit(t, context.Background(), map[string]any{"path": "f.txt", "tag": res.Tag,
		"ops": []editTestOp{{"op": "delete", "start": 2}}})
	var e *Error
	require.ErrorAs(t, rerr, &e)
	require.Equal(t, NotVisible, e.Refusal)
	_, rerr = s.edit(t, context.Background(), map[string]any{"path": "f.txt", "tag": res.Tag,
		"ops": []editTestOp{{"op": "delete", "start": 3}}})
	require.NoError(t, rerr, "the unclipped neighbour stays editable")
}

// An edit result is bounded like a Read: lines past the budget are not
// shown and not editable.
func TestEditResultBounded(t *testing.T) {
	s := newFixture(t)
	_, tag := s.file(t, "f.txt", "a\n")
	lines := make([]string, limits.SearchBudgetLines+500)
	for i := range lines {
		lines[i] = "n" + itoa(i)
	}
	res, rerr := s.edit(t, context.Background(), map[string]any{"path": "f.txt", "tag": tag,
		"ops": []editTestOp{{"op": "insert", "start": 1, "lines": lines}}})
	require.NoError(t, rerr)
	require.Equal(t, limits.SearchBudgetLines, strings.Count(res.Content, "\n")-1)
	require.Contains(t, res.Notice, "offset="+itoa(limits.SearchBudgetLines+1))
	abs := filepath.Join(s.dir, "f.txt")
	require.True(t, s.src.Has(abs, res.Tag, limits.SearchBudgetLines))
	require.False(t, s.src.Has(abs, res.Tag, limits.SearchBudgetLines+1))
}

func TestEditCancelled(t *testing.T) {
	s := newFixture(t)
	abs, tag := s.file(t, "f.txt", "a\nb\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, rerr := s.edit(t, ctx, map[string]any{"path": "f.txt", "tag": tag,
		"ops": []editTestOp{{"op": "delete", "start": 1}}})
	require.ErrorIs(t, rerr, context.Canceled)
	got, err := os.ReadFile(abs)
	require.NoError(t, err)
	require.Equal(t, "a\nb\n", string(got))
	requireNoEditTemp(t, s.dir)
}

// BenchmarkEditLargeFile edits the first line of a 64 MB file: two passes
// over the file (tag check, then copy through a temporary file, fsync, rename).
func BenchmarkEditLargeFile(b *testing.B) {
	s := newFixture(b)
	line := strings.Repeat("0123456789", 9) + "abcdefghi\n"
	content := strings.Repeat(line, 64<<20/len(line))
	_, tag := s.file(b, "big.txt", content)
	b.SetBytes(int64(len(content)))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		res, err := s.edit(b, context.Background(), map[string]any{"path": "big.txt", "tag": tag,
			"ops": []editTestOp{{"op": "replace", "start": 1, "lines": []string{"edit " + strconv.Itoa(i)}}}})
		require.NoError(b, err)
		tag = res.Tag
	}
}
