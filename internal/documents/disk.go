package documents

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/walk"
)

// diskSeen is what the last comparison of a document with its file found.
type diskSeen struct {
	doc     *Doc
	size    int64
	mtime   time.Time
	differs bool
}

// Unsaved returns the document held for abs when its text differs from the
// file on disk (or there is no file), else nil.
func (s *Store) Unsaved(abs string) *Doc {
	d := s.Get(abs)
	if d == nil || !s.differs(d) {
		return nil
	}
	return d
}

// UnsavedAll returns every document held whose text differs from its file,
// by path.
func (s *Store) UnsavedAll() []*Doc {
	var out []*Doc
	for _, d := range s.Open() {
		if s.differs(d) {
			out = append(out, d)
		}
	}
	return out
}

// differs compares d with its file, remembering the answer for this version
// of both.
func (s *Store) differs(d *Doc) bool {
	fi, err := os.Stat(d.Abs)
	if err != nil || !fi.Mode().IsRegular() {
		return errors.Is(err, fs.ErrNotExist) || err == nil
	}
	s.mu.Lock()
	seen, ok := s.disk[d.Abs]
	s.mu.Unlock()
	if ok && seen.doc == d && seen.size == fi.Size() && seen.mtime.Equal(fi.ModTime()) {
		return seen.differs
	}
	diff := (fi.Size() != int64(d.Text.Len()) || !sameAsFile(d, fi.Size())) && !sameDecoded(d, fi.Size())
	s.mu.Lock()
	if s.docs[d.Abs] == d {
		s.disk[d.Abs] = diskSeen{doc: d, size: fi.Size(), mtime: fi.ModTime(), differs: diff}
	}
	s.mu.Unlock()
	return diff
}

// sameAsFile reports whether the file holds d's text, byte for byte.
func sameAsFile(d *Doc, size int64) bool {
	f, err := os.Open(d.Abs)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 64*1024)
	same := true
	d.Text.Chunks(func(c []byte) bool {
		for len(c) > 0 && same {
			n := min(len(c), len(buf))
			if _, err := io.ReadFull(f, buf[:n]); err != nil || !bytes.Equal(buf[:n], c[:n]) {
				same = false
			}
			c = c[n:]
		}
		return same
	})
	if same {
		var one [1]byte
		n, _ := f.Read(one[:])
		same = n == 0
	}
	return same
}

// sameDecoded reports whether the file, in an encoding other than UTF-8
// (SPEC §4.1: a BOM, UTF-16, a legacy encoding the sniff names), decodes
// to d's text: an editor holds a Latin-1 file's text as UTF-8.
func sameDecoded(d *Doc, size int64) bool {
	if size > 4*int64(limits.DocumentMaxBytes) {
		return false
	}
	data, err := os.ReadFile(d.Abs)
	if err != nil {
		return false
	}
	enc, binary, _ := walk.SniffText(data, true)
	if binary || enc == nil || !enc.Transcoded() && enc.BOM() == nil {
		return false
	}
	text, exact := enc.Decode(bytes.TrimPrefix(data, enc.BOM()))
	return exact && equal(d.Text, []byte(text))
}
