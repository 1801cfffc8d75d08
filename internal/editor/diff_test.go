package editor

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

// FuzzDiff: the span Diff names turns old into new, and never cuts a
// character or a "\r\n".
func FuzzDiff(f *testing.F) {
	f.Add([]byte("a😀b\r\nc"), []byte("a😁b\nc"))
	f.Add([]byte("x\r\n"), []byte("x\r\r\n"))
	f.Fuzz(func(t *testing.T, old, new []byte) {
		s, oe, ne := Diff(old, new)
		got := append(append(append([]byte(nil), old[:s]...), new[s:ne]...), old[oe:]...)
		if !bytes.Equal(got, new) {
			t.Fatalf("Diff = %d, %d, %d: gives %q, want %q", s, oe, ne, got, new)
		}
		if utf8.Valid(old) && utf8.Valid(new) && (!utf8.Valid(old[s:oe]) || !utf8.Valid(new[s:ne])) {
			t.Fatalf("Diff = %d, %d, %d cuts a character", s, oe, ne)
		}
		if splitsCRLF(old, s) || splitsCRLF(old, oe) {
			t.Fatalf("Diff = %d, %d, %d cuts a \\r\\n", s, oe, ne)
		}
	})
}
