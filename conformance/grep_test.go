package conformance

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// grepContentReply is the content-mode GrepResult of SPEC §5.
type grepContentReply struct {
	Matches []struct {
		Path    string `json:"path"`
		Line    int    `json:"line"`
		Text    string `json:"text"`
		Context bool   `json:"context"`
	} `json:"matches"`
	Tags      map[string]string `json:"tags"`
	Count     int               `json:"count"`
	Files     int               `json:"files"`
	Truncated bool              `json:"truncated"`
	Notice    string            `json:"notice"`
}

// grepFilesReply is the filesWithMatches GrepResult.
type grepFilesReply struct {
	Files     []string `json:"files"`
	Count     int      `json:"count"`
	Truncated bool     `json:"truncated"`
	Notice    string   `json:"notice"`
}

// grepCountReply is the count-mode GrepResult.
type grepCountReply struct {
	Counts []struct {
		Path  string `json:"path"`
		Count int    `json:"count"`
	} `json:"counts"`
	Count     int    `json:"count"`
	Truncated bool   `json:"truncated"`
	Notice    string `json:"notice"`
}

// grepWrite writes files below dir; each next file is one hour older than
// the one before, so the expected newest-first order is the listed order.
func grepWrite(t *testing.T, dir string, files [][2]string) {
	t.Helper()
	base := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	for i, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f[0]))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(f[1]), 0o644))
		mt := base.Add(-time.Duration(i) * time.Hour)
		require.NoError(t, os.Chtimes(p, mt, mt))
	}
}

// TestCriterion03_GrepHeadLimit checks SPEC §5 (§11 criterion 3): grep stops at
// headLimit with truncated: true.
func TestCriterion03_GrepHeadLimit(t *testing.T) {
	s := start(t)
	var files [][2]string
	for i := 0; i < 250; i++ {
		files = append(files, [2]string{"f" + strings.Repeat("0", 3-len(itoaC(i))) + itoaC(i) + ".txt", "match\nmatch\nother\n"})
	}
	grepWrite(t, s.Root, files)

	content := decode[grepContentReply](t, s.call(t, "tools/grep", map[string]any{"pattern": "match", "outputMode": "content", "headLimit": 75}))
	require.Len(t, content.Matches, 75)
	require.Equal(t, 75, content.Count)
	require.Equal(t, 38, content.Files)
	require.True(t, content.Truncated)
	require.Regexp(t, regexp.MustCompile(`^Stopped at headLimit=75 matching lines; more matches exist\. Next: offset=75, or narrow path/glob\.$`), content.Notice)
	require.Equal(t, "f000.txt", content.Matches[0].Path)
	require.Equal(t, "f037.txt", content.Matches[74].Path)
	require.Equal(t, 1, content.Matches[74].Line)

	// The default headLimit is 200 files in filesWithMatches mode.
	files200 := decode[grepFilesReply](t, s.call(t, "tools/grep", map[string]any{"pattern": "match"}))
	require.Len(t, files200.Files, 200)
	require.Equal(t, 200, files200.Count)
	require.True(t, files200.Truncated)
	require.Regexp(t, `^Stopped at headLimit=200 files; more matches exist\. Next: offset=200`, files200.Notice)

	// The next page holds the rest, untruncated.
	rest := decode[grepFilesReply](t, s.call(t, "tools/grep", map[string]any{"pattern": "match", "offset": 200}))
	require.Len(t, rest.Files, 50)
	require.False(t, rest.Truncated)
	require.Empty(t, rest.Notice)

	counts := decode[grepCountReply](t, s.call(t, "tools/grep", map[string]any{"pattern": "match", "outputMode": "count", "headLimit": 10}))
	require.Len(t, counts.Counts, 10)
	require.Equal(t, 20, counts.Count)
	require.True(t, counts.Truncated)
}

func itoaC(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoaC(i/10) + digits[i%10:i%10+1]
}

// TestCriterion04_GrepClipsLongLines checks SPEC §5 (§11 criterion 4): grep
// clips lines at 16384 characters.
func TestCriterion04_GrepClipsLongLines(t *testing.T) {
	s := start(t)
	long := "needle " + strings.Repeat("ß", 20000)
	grepWrite(t, s.Root, [][2]string{{"long.txt", "needle short\n" + long + "\nneedle end\n"}})
	res := decode[grepContentReply](t, s.call(t, "tools/grep", map[string]any{"pattern": "needle", "outputMode": "content"}))
	require.Len(t, res.Matches, 3)
	require.Equal(t, "needle short", res.Matches[0].Text)
	clipped := res.Matches[1].Text
	require.Equal(t, 16384, utf8.RuneCountInString(clipped))
	require.Equal(t, []rune(long)[:16384], []rune(clipped))
	require.True(t, res.Truncated)
	require.Regexp(t, `(^| )1 line clipped at 16384 characters`, res.Notice)

	// The clipped line stays out of the edit source set; a whole line joins it.
	tag := res.Tags["long.txt"]
	require.Regexp(t, `^[0-9a-f]{4}$`, tag)
	e := s.callErr(t, "tools/edit", map[string]any{"path": "long.txt", "tag": tag,
		"ops": []map[string]any{{"op": "replace", "start": 2, "lines": []string{"x"}}}})
	require.Equal(t, "LINE_NOT_VISIBLE", e.Kind)
	s.call(t, "tools/edit", map[string]any{"path": "long.txt", "tag": tag,
		"ops": []map[string]any{{"op": "replace", "start": 3, "lines": []string{"needle changed"}}}})
}

// TestCriterion07_ExplicitPathReachesIgnored checks SPEC §3, §5 (§11 criterion
// 7): an explicit path reaches ignored trees.
func TestCriterion07_ExplicitPathReachesIgnored(t *testing.T) {
	s := start(t)
	grepWrite(t, s.Root, [][2]string{
		{".gitignore", "node_modules/\n"},
		{"src/app.js", "require('x') // token\n"},
		{"node_modules/x/index.js", "module.exports = 'token'\n"},
		{"node_modules/x/.gitignore", "dist/\n"},
		{"node_modules/x/dist/bundle.js", "token\n"},
	})
	def := decode[grepFilesReply](t, s.call(t, "tools/grep", map[string]any{"pattern": "token"}))
	require.Equal(t, []string{"src/app.js"}, def.Files)

	nm := decode[grepFilesReply](t, s.call(t, "tools/grep", map[string]any{"pattern": "token", "path": "node_modules/x"}))
	require.Equal(t, []string{"node_modules/x/index.js"}, nm.Files, "ignore files inside the explicit path still apply")
	g := decode[globReply](t, s.call(t, "tools/glob", map[string]any{"pattern": "**/*.js", "path": "node_modules/x"}))
	require.Equal(t, []string{"node_modules/x/index.js"}, g.Matches)

	// The scratch dir lies outside the workspace root.
	spillDir := filepath.Join(s.ScratchDir, "tool-output")
	require.NoError(t, os.MkdirAll(spillDir, 0o700))
	spill := filepath.Join(spillDir, "bash-stdout-1-0.log")
	require.NoError(t, os.WriteFile(spill, []byte("line one\ntoken in spill\n"), 0o600))
	sc := decode[grepContentReply](t, s.call(t, "tools/grep", map[string]any{"pattern": "token", "path": s.ScratchDir, "outputMode": "content"}))
	require.Len(t, sc.Matches, 1)
	require.Equal(t, spill, sc.Matches[0].Path)
	require.Equal(t, 2, sc.Matches[0].Line)
	require.Equal(t, "token in spill", sc.Matches[0].Text)
	gs := decode[globReply](t, s.call(t, "tools/glob", map[string]any{"pattern": "**/*.log", "path": s.ScratchDir}))
	require.Equal(t, []string{spill}, gs.Matches)
}

// TestCriterion08_NewestFirst checks SPEC §5 (§11 criterion 8): glob and grep
// order files newest first.
func TestCriterion08_NewestFirst(t *testing.T) {
	s := start(t)
	// Listed newest first; b.txt and a.txt share an mtime (path breaks the tie).
	grepWrite(t, s.Root, [][2]string{
		{"zeta/new.txt", "hit 1\nhit 2\n"},
		{"mid.txt", "hit 3\n"},
		{"old/deep/x.txt", "miss\nhit 4\n"},
		{"b.txt", "hit 5\n"},
	})
	tie := time.Date(2025, 6, 1, 8, 0, 0, 0, time.UTC)
	require.NoError(t, os.WriteFile(filepath.Join(s.Root, "a.txt"), []byte("hit 6\n"), 0o644))
	for _, p := range []string{"a.txt", "b.txt"} {
		require.NoError(t, os.Chtimes(filepath.Join(s.Root, p), tie, tie))
	}
	want := []string{"zeta/new.txt", "mid.txt", "old/deep/x.txt", "a.txt", "b.txt"}

	files := decode[grepFilesReply](t, s.call(t, "tools/grep", map[string]any{"pattern": "hit"}))
	require.Equal(t, want, files.Files)

	counts := decode[grepCountReply](t, s.call(t, "tools/grep", map[string]any{"pattern": "hit", "outputMode": "count"}))
	var gotCounts []string
	for _, c := range counts.Counts {
		gotCounts = append(gotCounts, c.Path+":"+itoaC(c.Count))
	}
	require.Equal(t, []string{"zeta/new.txt:2", "mid.txt:1", "old/deep/x.txt:1", "a.txt:1", "b.txt:1"}, gotCounts)
	require.Equal(t, 6, counts.Count)

	content := decode[grepContentReply](t, s.call(t, "tools/grep", map[string]any{"pattern": "hit", "outputMode": "content"}))
	var gotLines []string
	for _, m := range content.Matches {
		gotLines = append(gotLines, m.Path+":"+itoaC(m.Line)+":"+m.Text)
	}
	require.Equal(t, []string{"zeta/new.txt:1:hit 1", "zeta/new.txt:2:hit 2", "mid.txt:1:hit 3", "old/deep/x.txt:2:hit 4", "a.txt:1:hit 6", "b.txt:1:hit 5"}, gotLines)

	glob := decode[globReply](t, s.call(t, "tools/glob", map[string]any{"pattern": "**/*.txt"}))
	require.Equal(t, want, glob.Matches)
}

// TestCriterion09_GrepValidUTF8 checks SPEC §5 (§11 criterion 9): grep results
// are valid UTF-8.
func TestCriterion09_GrepValidUTF8(t *testing.T) {
	s := start(t)
	long := "hit " + strings.Repeat("日本", 9000) // 3-byte characters past the clip point
	grepWrite(t, s.Root, [][2]string{{"u.txt", "hit caf\xe9 latin-1\n" + long + "\nhit plain\n"}})
	raw := s.call(t, "tools/grep", map[string]any{"pattern": "hit", "outputMode": "content"})
	require.True(t, utf8.Valid(raw))
	res := decode[grepContentReply](t, raw)
	require.Len(t, res.Matches, 3)
	for _, m := range res.Matches {
		require.True(t, utf8.ValidString(m.Text), m.Text)
	}
	require.Equal(t, "hit caf\uFFFD latin-1", res.Matches[0].Text)
	require.Equal(t, 16384, utf8.RuneCountInString(res.Matches[1].Text))
	require.True(t, strings.HasSuffix(res.Matches[1].Text, "日") || strings.HasSuffix(res.Matches[1].Text, "本"))
	require.True(t, res.Truncated)
	require.Regexp(t, `(^| )2 lines clipped`, res.Notice)
}

// TestGrepIgnoreRules checks SPEC §5: grep honours the ignore rules.
func TestGrepIgnoreRules(t *testing.T) {
	s := start(t)
	grepWrite(t, s.Root, [][2]string{
		{".gitignore", "*.log\n!keep.log\nbuild/\n/root-only.txt\n"},
		{".ignore", "!build/\n"},
		{"keep.log", "hit\n"},
		{"drop.log", "hit\n"},
		{"build/out.txt", "hit\n"},
		{"root-only.txt", "hit\n"},
		{"sub/root-only.txt", "hit\n"},
		{"sub/.gitignore", "!drop.log\n"},
		{"sub/drop.log", "hit\n"},
		{".hidden/h.txt", "hit\n"},
		{".git/config", "hit\n"},
		{".git/info/exclude", "excluded.txt\n"},
		{"excluded.txt", "hit\n"},
		{"outside/o.txt", "hit\n"},
	})
	require.NoError(t, os.Symlink(filepath.Join(s.Root, "outside"), filepath.Join(s.Root, "link")))
	files := decode[grepFilesReply](t, s.call(t, "tools/grep", map[string]any{"pattern": "hit"}))
	require.ElementsMatch(t, []string{"keep.log", "build/out.txt", "sub/root-only.txt", "sub/drop.log", ".hidden/h.txt", "outside/o.txt"}, files.Files)
}

// TestGrepInvalidRegex checks SPEC §5, §10: an invalid regex is
// INVALID_ARGUMENT naming the error.
func TestGrepInvalidRegex(t *testing.T) {
	s := start(t)
	e := s.callErr(t, "tools/grep", map[string]any{"pattern": "a(b"})
	require.Equal(t, int64(-32602), e.Code)
	require.Equal(t, "INVALID_ARGUMENT", e.Kind)
	require.Contains(t, e.Message, "missing closing ): `a(b`")
}
