package documents

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/internal/roots"
	"github.com/toolrpc/toolrpc/internal/rope"
)

// testStore returns a store that holds any path under dir, and what it logged.
func testStore(t testing.TB, enc Encoding, dir string) (*Store, *[]string) {
	var logged []string
	s := NewStore(enc, func(p string) (string, bool) { return p, strings.HasPrefix(p, dir) },
		func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) })
	return s, &logged
}

func send(t testing.TB, s *Store, method string, params any) {
	t.Helper()
	b, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Handle(method, b) {
		t.Fatalf("%s not handled", method)
	}
}

func open(t testing.TB, s *Store, uri, text string, version int) {
	send(t, s, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "text", "version": version, "text": text}})
}

func change(t testing.TB, s *Store, uri string, version int, changes ...map[string]any) {
	send(t, s, "textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": uri, "version": version}, "contentChanges": changes})
}

func rng(l1, c1, l2, c2 int, text string) map[string]any {
	return map[string]any{"range": map[string]any{
		"start": map[string]any{"line": l1, "character": c1},
		"end":   map[string]any{"line": l2, "character": c2}}, "text": text}
}

// utf16Len is the UTF-16 length of s.
func utf16Len(s string) int { return len(utf16.Encode([]rune(s))) }

func TestChangesInEachEncoding(t *testing.T) {
	dir := t.TempDir()
	uri := roots.PathURI(filepath.Join(dir, "a.txt"))
	for _, enc := range []Encoding{UTF8, UTF16, UTF32} {
		t.Run(enc.String(), func(t *testing.T) {
			s, logged := testStore(t, enc, dir)
			open(t, s, uri, "a😀b\nsecond\n", 1)
			// Replace "b" (after the emoji) with "X".
			c := map[Encoding]int{UTF8: 5, UTF16: 3, UTF32: 2}[enc]
			change(t, s, uri, 2, rng(0, c, 0, c+1, "X"), rng(1, 0, 1, 99, "2nd"))
			d := s.Get(filepath.Join(dir, "a.txt"))
			if want, got := "a😀X\n2nd\n", d.Text.String(); want != got || d.Version != 2 {
				t.Fatalf("text, version = %q, %d; want %q, 2 (log %q)", got, d.Version, want, *logged)
			}
		})
	}
}

func TestBadInputDropsTheDocument(t *testing.T) {
	dir := t.TempDir()
	abs := filepath.Join(dir, "a.txt")
	uri := roots.PathURI(abs)
	cases := []struct {
		name string
		send func(s *Store)
	}{
		{"range past the last line", func(s *Store) { change(t, s, uri, 2, rng(5, 0, 5, 0, "x")) }},
		{"version goes backwards", func(s *Store) { change(t, s, uri, 1, rng(0, 0, 0, 0, "x")) }},
		{"lone surrogate", func(s *Store) { change(t, s, uri, 2, rng(0, 2, 0, 2, "x")) }},
		{"end before start", func(s *Store) { change(t, s, uri, 2, rng(0, 1, 0, 0, "x")) }},
		{"unreadable params", func(s *Store) {
			s.Handle("textDocument/didChange", json.RawMessage(`{"textDocument":{"uri":"`+uri+`","version":"x"}}`))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, logged := testStore(t, UTF16, dir)
			open(t, s, uri, "a😀b\n", 1)
			tc.send(s)
			if d := s.Get(abs); d != nil {
				t.Fatalf("document still held as %q", d.Text.String())
			}
			if len(*logged) == 0 {
				t.Fatal("nothing logged")
			}
			if n := s.Notice(abs); !strings.Contains(n, "fell out of sync") {
				t.Fatalf("notice = %q, want it to say the document fell out of sync", n)
			}
			if n := s.Notice(abs); n != "" {
				t.Fatalf("second notice = %q, want none (once)", n)
			}
			open(t, s, uri, "new", 3)
			if d := s.Get(abs); d == nil || d.Text.String() != "new" {
				t.Fatal("didOpen after a drop does not hold the document again")
			}
		})
	}
}

func TestNotHeld(t *testing.T) {
	dir := t.TempDir()
	s, logged := testStore(t, UTF16, dir)
	open(t, s, "untitled:Untitled-1", "x", 1)
	open(t, s, roots.PathURI(filepath.Join(t.TempDir(), "out.txt")), "x", 1)
	change(t, s, roots.PathURI(filepath.Join(dir, "never.txt")), 2, rng(0, 0, 0, 0, "x"))
	if len(s.Open()) != 0 || len(*logged) != 3 {
		t.Fatalf("held %d documents, logged %q; want none held, 3 lines", len(s.Open()), *logged)
	}
}

func TestUnsavedComparesWithDisk(t *testing.T) {
	dir := t.TempDir()
	abs := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(abs, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ := testStore(t, UTF16, dir)
	open(t, s, roots.PathURI(abs), "one\n", 1)
	if d := s.Unsaved(abs); d != nil {
		t.Fatal("a buffer equal to its file is unsaved")
	}
	change(t, s, roots.PathURI(abs), 2, rng(0, 3, 0, 3, "!"))
	if d := s.Unsaved(abs); d == nil || d.Text.String() != "one!\n" {
		t.Fatal("a changed buffer is not unsaved")
	}
	if err := os.WriteFile(abs, []byte("one!\n"), 0o644); err != nil { // the editor saved
		t.Fatal(err)
	}
	if d := s.Unsaved(abs); d != nil {
		t.Fatal("a saved buffer is unsaved")
	}
}

// FuzzChanges: any sequence of valid changes, in any encoding, gives the
// text that applying them to a string gives.
func FuzzChanges(f *testing.F) {
	f.Add("héllo\n😀 world\r\nend", []byte{0, 3, 9, 1, 200, 7, 2, 5, 5})
	f.Fuzz(func(t *testing.T, init string, ops []byte) {
		if !utf8.ValidString(init) {
			return
		}
		dir := "/fuzz"
		uri := roots.PathURI("/fuzz/a.txt")
		enc := Encoding(len(ops) % 3)
		s, logged := testStore(t, enc, dir)
		open(t, s, uri, init, 1)
		want := init
		for v := 2; len(ops) >= 3; v++ {
			a, b := boundary(want, int(ops[0])), boundary(want, int(ops[1]))
			a, b = min(a, b), max(a, b)
			with := []string{"", "x", "\n", "é😀", "\r\n"}[int(ops[2])%5]
			ops = ops[3:]
			ta := rope.New([]byte(want))
			l1, c1 := Position(ta, a, enc)
			l2, c2 := Position(ta, b, enc)
			change(t, s, uri, v, rng(l1, c1, l2, c2, with))
			want = want[:a] + with + want[b:]
		}
		d := s.Get("/fuzz/a.txt")
		if d == nil {
			t.Fatalf("document dropped: %q", *logged)
		}
		if got := d.Text.String(); got != want {
			t.Fatalf("text = %q, want %q", got, want)
		}
	})
}

// boundary returns a rune boundary of s near i, never inside a "\r\n" (a
// position names no place between the two).
func boundary(s string, i int) int {
	i %= len(s) + 1
	for i > 0 && i < len(s) && (!utf8.RuneStart(s[i]) || s[i-1] == '\r' && s[i] == '\n') {
		i--
	}
	return i
}

// FuzzPosition: a position and an offset convert into each other in every
// encoding, a character counts what the encoding says, and no position of
// any value panics.
func FuzzPosition(f *testing.F) {
	f.Add("a😀b\nxé\r\n", 3, 0, 5)
	f.Fuzz(func(t *testing.T, text string, off, line, char int) {
		if !utf8.ValidString(text) {
			return
		}
		r := rope.New([]byte(text))
		off = boundary(text, max(off, 0))
		for _, enc := range []Encoding{UTF8, UTF16, UTF32} {
			l, c := Position(r, off, enc)
			got, err := Offset(r, l, c, enc)
			if err != nil || got != off {
				t.Fatalf("%v: Offset(Position(%d) = %d:%d) = %d, %v", enc, off, l, c, got, err)
			}
			start, _ := r.LineStart(l)
			seg := text[start:off]
			want := map[Encoding]int{UTF8: len(seg), UTF16: utf16Len(seg), UTF32: utf8.RuneCountInString(seg)}[enc]
			if c != want {
				t.Fatalf("%v: character %d, want %d", enc, c, want)
			}
			if o, err := Offset(r, line%1000, char%100000, enc); err == nil && (o < 0 || o > len(text)) {
				t.Fatalf("Offset(%d:%d) = %d outside the text", line, char, o)
			}
		}
	})
}

// TestUnsavedDecodesTheFile: a buffer of a file in another encoding (a
// UTF-8 BOM, Latin-1) is unsaved only when its text differs from the
// file's decoded text.
func TestUnsavedDecodesTheFile(t *testing.T) {
	dir := t.TempDir()
	for name, disk := range map[string]string{"bom.txt": "\xef\xbb\xbfcaf\xc3\xa9\n", "latin1.txt": strings.Repeat("Le caf\xe9 de la cr\xe8me br\xfbl\xe9e est d\xe9j\xe0 pr\xeat, tr\xe8s \xe9l\xe9gant.\n", 20)} {
		abs := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(abs, []byte(disk), 0o644))
		s, _ := testStore(t, UTF16, dir)
		text := map[string]string{"bom.txt": "café\n", "latin1.txt": strings.Repeat("Le café de la crème brûlée est déjà prêt, très élégant.\n", 20)}[name]
		open(t, s, roots.PathURI(abs), text, 1)
		require.Nil(t, s.Unsaved(abs), name)
		change(t, s, roots.PathURI(abs), 2, rng(0, 0, 0, 0, "x"))
		require.NotNil(t, s.Unsaved(abs), name)
	}
}

// TestNegotiate checks SPEC §15: utf-8 when offered, else utf-16 (offered or
// nothing offered), else utf-32 when that alone is offered.
func TestNegotiate(t *testing.T) {
	for _, tc := range []struct {
		offered []string
		want    Encoding
	}{{[]string{"utf-16", "utf-8"}, UTF8}, {nil, UTF16}, {[]string{"utf-32", "utf-16"}, UTF16}, {[]string{"utf-32"}, UTF32}, {[]string{"latin-1"}, UTF16}} {
		require.Equal(t, tc.want, Negotiate(tc.offered), "offered %v", tc.offered)
	}
}
