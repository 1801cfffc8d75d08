package conformance

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// editReply is the tools/edit result of SPEC §8.
type editReply struct {
	Path         string `json:"path"`
	Tag          string `json:"tag"`
	Content      string `json:"content"`
	ClippedLines []int  `json:"clippedLines"`
	Notice       string `json:"notice"`
}

// writeReply is the tools/write result.
type writeReply struct {
	Path    string `json:"path"`
	Root    string `json:"root"`
	Tag     string `json:"tag"`
	Created bool   `json:"created"`
}

// editGrepReply is the content-mode GrepResult of SPEC §5.
type editGrepReply struct {
	Matches []struct {
		Line int    `json:"line"`
		Text string `json:"text"`
	} `json:"matches"`
	Tags map[string]string `json:"tags"`
}

// editErrData is the data of STALE_TAG and LINE_NOT_VISIBLE errors.
type editErrData struct {
	Tag   string `json:"tag"`
	Lines []int  `json:"lines"`
}

func editRead(t *testing.T, s *server, path string) readReply {
	t.Helper()
	return decode[readReply](t, s.call(t, "tools/read", map[string]any{"path": path}))
}

// TestCriterion04_ClippedLinesNotEditable checks SPEC §8 (§11 criterion 4):
// clipped lines are not in the edit source set.
func TestCriterion04_ClippedLinesNotEditable(t *testing.T) {
	long := strings.Repeat("z", 20000) // over MAX_LINE_CHARS (16384)
	const name = "wide.txt"
	original := "head\n" + long + "\ntail\n"
	tests := []struct {
		name string
		// show makes the server show the file and returns the tag it gave.
		show func(t *testing.T, s *server) string
	}{
		{"read", func(t *testing.T, s *server) string {
			r := editRead(t, s, name)
			require.Equal(t, []int{2}, r.ClippedLines)
			require.True(t, r.Truncated)
			return r.Tag
		}},
		{"grep content", func(t *testing.T, s *server) string {
			g := decode[editGrepReply](t, s.call(t, "tools/grep", map[string]any{"pattern": "z|head|tail", "outputMode": "content"}))
			require.Len(t, g.Matches, 3)
			require.Less(t, len([]rune(g.Matches[1].Text)), len(long), "the wide line is clipped")
			return g.Tags[name]
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := start(t)
			p := filepath.Join(s.Root, name)
			require.NoError(t, os.WriteFile(p, []byte(original), 0o644))
			tag := tc.show(t, s)
			require.Regexp(t, `^[0-9a-f]{4}$`, tag)

			for _, op := range []map[string]any{
				{"op": "replace", "start": 2, "lines": []string{"blind"}},
				{"op": "delete", "start": 1, "end": 3},
				{"op": "insert", "start": 2, "lines": []string{"after the clipped line"}},
			} {
				e := s.callErr(t, "tools/edit", map[string]any{"path": name, "tag": tag, "ops": []any{op}})
				require.Equal(t, "LINE_NOT_VISIBLE", e.Kind, e.Message)
				require.Equal(t, int64(-32001), e.Code)
				require.Equal(t, []int{2}, decode[editErrData](t, e.Data).Lines)
				require.Regexp(t, `\b2\b`, e.Message)
			}
			got, err := os.ReadFile(p)
			require.NoError(t, err)
			require.Equal(t, original, string(got), "a refused edit changes nothing")

			r := decode[editReply](t, s.call(t, "tools/edit", map[string]any{"path": name, "tag": tag,
				"ops": []any{map[string]any{"op": "replace", "start": 3, "lines": []string{"TAIL"}}}}))
			got, err = os.ReadFile(p)
			require.NoError(t, err)
			require.Equal(t, "head\n"+long+"\nTAIL\n", string(got), "the unclipped line is edited, the wide one kept byte for byte")
			require.Equal(t, []int{2}, r.ClippedLines, "the result clips the context line too")
			require.Equal(t, "["+name+"#"+r.Tag+"]\n1:head\n2:"+strings.Repeat("z", 16384)+"\n3:TAIL\n", r.Content)

			e := s.callErr(t, "tools/edit", map[string]any{"path": name, "tag": r.Tag,
				"ops": []any{map[string]any{"op": "delete", "start": 2}}})
			require.Equal(t, "LINE_NOT_VISIBLE", e.Kind, "still not editable in the new version")
		})
	}
}

// TestEdit_StaleTagAfterOutsideChange checks SPEC §8: an edit against a tag the
// file no longer has is STALE_TAG with the current tag.
func TestEdit_StaleTagAfterOutsideChange(t *testing.T) {
	s := start(t)
	p := filepath.Join(s.Root, "f.txt")
	require.NoError(t, os.WriteFile(p, []byte("one\ntwo\n"), 0o644))
	r := editRead(t, s, "f.txt")
	require.NoError(t, os.WriteFile(p, []byte("one\nTWO\nthree\n"), 0o644))

	e := s.callErr(t, "tools/edit", map[string]any{"path": "f.txt", "tag": r.Tag,
		"ops": []any{map[string]any{"op": "delete", "start": 1}}})
	require.Equal(t, "STALE_TAG", e.Kind, e.Message)
	require.Equal(t, int64(-32001), e.Code)
	now := editRead(t, s, "f.txt")
	require.NotEqual(t, r.Tag, now.Tag)
	require.Equal(t, now.Tag, decode[editErrData](t, e.Data).Tag)
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, "one\nTWO\nthree\n", string(got))

	s.call(t, "tools/edit", map[string]any{"path": "f.txt", "tag": now.Tag,
		"ops": []any{map[string]any{"op": "delete", "start": 1}}})
	got, err = os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, "TWO\nthree\n", string(got))
}

// TestEdit_CRLFRoundTrip checks SPEC §8: an edit keeps CRLF line endings and
// the final newline.
func TestEdit_CRLFRoundTrip(t *testing.T) {
	s := start(t)
	p := filepath.Join(s.Root, "win.txt")
	original := "alpha\r\nbeta\r\ngamma\r\ndelta"
	require.NoError(t, os.WriteFile(p, []byte(original), 0o640))
	r := editRead(t, s, "win.txt")
	require.Equal(t, []string{"alpha", "beta", "gamma", "delta"}, readBody(t, r), "Read shows no \\r")

	e := decode[editReply](t, s.call(t, "tools/edit", map[string]any{"path": "win.txt", "tag": r.Tag, "ops": []any{
		map[string]any{"op": "replace", "start": 2, "lines": []string{"BETA", "beta2"}},
		map[string]any{"op": "insert", "start": 4, "lines": []string{"epsilon"}},
	}}))
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, "alpha\r\nBETA\r\nbeta2\r\ngamma\r\ndelta\r\nepsilon", string(got), "CRLF everywhere, still no final newline")
	require.NotContains(t, e.Content, "\r")
	fi, err := os.Stat(p)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o640), fi.Mode().Perm())

	// Read's content written back gives the same bytes.
	r = editRead(t, s, "win.txt")
	require.Equal(t, e.Tag, r.Tag)
	w := decode[writeReply](t, s.call(t, "tools/write", map[string]any{"path": "win.txt", "content": r.Content}))
	after, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, string(got), string(after))
	require.Equal(t, r.Tag, w.Tag)
}

// TestWrite_ReadContentReproducesFile checks SPEC §8: content pasted from a
// Read result is written back as the file's text.
func TestWrite_ReadContentReproducesFile(t *testing.T) {
	tests := []struct {
		name    string
		content string
		newPath bool // write to a fresh path instead of over the file
	}{
		{"lf to a new file", "package main\n\nfunc main() {}\n", true},
		{"lf over itself", "a\n\tb\n\n", false},
		{"no final newline", "a\nb", false},
		{"crlf", "a\r\nb\r\n", false},
		{"unicode", "héllo wörld ✓\n日本語\n", true},
		{"lines that look numbered", "1:x\n2:y\n", true},
		{"empty", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := start(t)
			require.NoError(t, os.WriteFile(filepath.Join(s.Root, "src.txt"), []byte(tc.content), 0o644))
			r := editRead(t, s, "src.txt")
			dst := "src.txt"
			if tc.newPath {
				dst = "out/copy.txt"
			}
			w := decode[writeReply](t, s.call(t, "tools/write", map[string]any{"path": dst, "content": r.Content}))
			got, err := os.ReadFile(filepath.Join(s.Root, filepath.FromSlash(dst)))
			require.NoError(t, err)
			require.Equal(t, tc.content, string(got))
			require.Equal(t, r.Tag, w.Tag)
			require.Equal(t, tc.newPath, w.Created)
		})
	}
}

// TestWrite_RootsAndParents checks SPEC §3, §8: write creates parents inside
// the roots and refuses external roots and the outside.
func TestWrite_RootsAndParents(t *testing.T) {
	ext := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ext, "e.txt"), []byte("ext\n"), 0o644))
	s := start(t, withExternalRoots(ext))
	outside := filepath.Join(t.TempDir(), "outside.txt")
	tests := []struct {
		name     string
		path     string
		wantKind string
	}{
		{"external root is read-only", filepath.Join(ext, "e.txt"), "PERMISSION_DENIED"},
		{"new file in an external root", filepath.Join(ext, "new.txt"), "PERMISSION_DENIED"},
		{"outside every root", outside, "PERMISSION_DENIED"},
		{"a directory", ".", "IS_DIRECTORY"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := s.callErr(t, "tools/write", map[string]any{"path": tc.path, "content": "x\n"})
			require.Equal(t, tc.wantKind, e.Kind, e.Message)
		})
	}
	b, err := os.ReadFile(filepath.Join(ext, "e.txt"))
	require.NoError(t, err)
	require.Equal(t, "ext\n", string(b))
	require.NoFileExists(t, filepath.Join(ext, "new.txt"))
	require.NoFileExists(t, outside)

	w := decode[writeReply](t, s.call(t, "tools/write", map[string]any{"path": "deep/er/new.txt", "content": "x\n"}))
	require.Equal(t, "deep/er/new.txt", w.Path)
	require.Equal(t, "workspace", w.Root)
	require.FileExists(t, filepath.Join(s.Root, "deep", "er", "new.txt"))
	e := s.callErr(t, "tools/edit", map[string]any{"path": filepath.Join(ext, "e.txt"), "tag": "0000",
		"ops": []any{map[string]any{"op": "delete", "start": 1}}})
	require.Equal(t, "PERMISSION_DENIED", e.Kind)
}

// Two edits sent at once against one tag: one applies, the other gets
// STALE_TAG naming the tag the first produced; nothing is lost.
//
// Checks SPEC §8.
func TestEdit_ConcurrentEditsSerialised(t *testing.T) {
	s := start(t)
	p := filepath.Join(s.Root, "f.txt")
	require.NoError(t, os.WriteFile(p, []byte("a\nb\nc\n"), 0o644))
	r := editRead(t, s, "f.txt")
	id1 := s.send(t, "tools/edit", map[string]any{"path": "f.txt", "tag": r.Tag,
		"ops": []any{map[string]any{"op": "replace", "start": 1, "lines": []string{"A"}}}})
	id2 := s.send(t, "tools/edit", map[string]any{"path": "f.txt", "tag": r.Tag,
		"ops": []any{map[string]any{"op": "replace", "start": 3, "lines": []string{"C"}}}})
	f1, f2 := s.wait(t, id1), s.wait(t, id2)
	require.True(t, (f1.Error == nil) != (f2.Error == nil), "exactly one edit applies")
	won, lost, want := f1, f2, "A\nb\nc\n"
	if f1.Error != nil {
		won, lost, want = f2, f1, "a\nb\nC\n"
	}
	require.Equal(t, "STALE_TAG", lost.Error.Kind)
	require.Equal(t, decode[editReply](t, won.Result).Tag, decode[editErrData](t, lost.Error.Data).Tag)
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, want, string(got))
}

// TestEdit_ToolsListStatesLimits checks SPEC §1, §8: tools/list states the edit
// limits the server enforces.
func TestEdit_ToolsListStatesLimits(t *testing.T) {
	s := start(t)
	tools := decode[[]struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}](t, s.call(t, "tools/list", nil))
	found := map[string]string{}
	for _, tl := range tools {
		found[tl.Name] = tl.Description
	}
	require.Contains(t, found, "tools/write")
	require.Regexp(t, `\b200 ops\b`, found["tools/edit"])
	require.Regexp(t, `\b256 KB\b`, found["tools/edit"])
	require.Regexp(t, `\b16384 characters\b`, found["tools/edit"])
}

// editBigFile writes at least size bytes of 100-byte lines and returns the
// file's size, its SHA-256 and that of the file with its first line replaced
// by first.
func editBigFile(t *testing.T, p string, size int64, first string) (oldSize int64, oldSum, newSum [32]byte) {
	t.Helper()
	f, err := os.Create(p)
	require.NoError(t, err)
	oldH, newH := sha256.New(), sha256.New()
	w := bufio.NewWriterSize(io.MultiWriter(f, oldH), 1<<20)
	line := []byte(strings.Repeat("0123456789", 9) + "abcdefgh\n")
	var written int64
	for i := 0; written < size; i++ {
		copy(line, []byte{byte('a' + i%26)})
		_, err := w.Write(line)
		require.NoError(t, err)
		if i == 0 {
			newH.Write([]byte(first + "\n"))
		} else {
			newH.Write(line)
		}
		written += int64(len(line))
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
	copy(oldSum[:], oldH.Sum(nil))
	copy(newSum[:], newH.Sum(nil))
	return written, oldSum, newSum
}

// An edit of a 200 MB file rewrites all of it; kill -9 while it does, and
// the file is wholly old or wholly new.
//
// Checks SPEC §8, §10.
func TestEdit_KillDuringLargeEditIsAtomic(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 200 MB")
	}
	s := start(t)
	p := filepath.Join(s.Root, "big.log")
	const size = 200 << 20
	oldSize, oldSum, newSum := editBigFile(t, p, size, "edited")
	r := decode[readReply](t, s.call(t, "tools/read", map[string]any{"path": "big.log", "limit": 1}))

	id := s.send(t, "tools/edit", map[string]any{"path": "big.log", "tag": r.Tag,
		"ops": []any{map[string]any{"op": "replace", "start": 1, "lines": []string{"edited"}}}})
	// Kill once the replacement is partly written (or the edit is done).
	temp := ""
	for deadline := time.Now().Add(replyWait); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		m, _ := filepath.Glob(filepath.Join(s.Root, ".big.log.toolrpc-*.tmp"))
		if len(m) > 0 {
			if fi, err := os.Stat(m[0]); err == nil && fi.Size() > 0 {
				temp = m[0]
				break
			}
		}
		// On Linux the replacement is an unnamed file (O_TMPFILE) until
		// just before the rename: the server's fd shows it as "#N (deleted)".
		if u := unnamedBeside(s.pid(), s.Root); u != "" {
			temp = u
			break
		}
		if editReplied(s, id) {
			break
		}
	}
	require.NoError(t, signalPid(s.pid(), syscall.SIGKILL))
	<-s.exited

	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	require.NoError(t, err)
	var got [32]byte
	copy(got[:], h.Sum(nil))
	switch got {
	case oldSum:
		require.Equal(t, oldSize, n)
		t.Logf("killed mid-write (temp %s): the file is wholly old", filepath.Base(temp))
	case newSum:
		firstLine := int64(len(strings.Repeat("0123456789", 9) + "abcdefgh\n")) // editBigFile's lines
		require.Equal(t, oldSize-firstLine+int64(len("edited\n")), n)
		t.Logf("the edit finished before the kill: the file is wholly new")
	default:
		t.Fatalf("the file is neither old nor new after kill -9 (size %d)", n)
	}
	// A leftover temporary file is never the target, and is recognisable.
	left, _ := filepath.Glob(filepath.Join(s.Root, ".big.log.toolrpc-*.tmp"))
	for _, l := range left {
		require.NoError(t, os.Remove(l))
	}
}

// unnamedBeside returns the server's open unnamed file in dir that holds
// data (an O_TMPFILE replacement being written), or "".
func unnamedBeside(pid int, dir string) string {
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, fd := range fds {
		link := fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())
		target, err := os.Readlink(link)
		if err != nil || !strings.HasPrefix(target, dir+"/#") {
			continue
		}
		if fi, err := os.Stat(link); err == nil && fi.Size() > 0 {
			return target
		}
	}
	return ""
}

// editReplied reports whether the reply to id has arrived, without waiting.
func editReplied(s *server, id json.RawMessage) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.replies[compact(id)]
	return ok
}
