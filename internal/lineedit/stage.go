package lineedit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/toolrpc/toolrpc/internal/atomicfile"
	"github.com/toolrpc/toolrpc/internal/sourceset"
	"github.com/toolrpc/toolrpc/internal/textenc"
	"github.com/toolrpc/toolrpc/limits"
)

// Doc is a text file read whole to be changed as text: its decoded text and
// what it takes to write a new text back the same way (encoding, BOM,
// mode). The model dialects' edits (SPEC §16) read files as Docs and
// commit their new texts together with a Plan.
type Doc struct {
	// Abs is the file's absolute path; Name is how messages call it.
	Abs, Name string
	// Text is the file's text, decoded (§4.1), without its BOM.
	Text string
	// Tag is the tag of the file's bytes (sourceset.TagOf).
	Tag string

	raw  []byte
	info fs.FileInfo
	enc  *textenc.Encoding
}

// ReadDoc reads the regular text file abs (called name in messages) whole
// for tool. A missing file, a directory, a file over
// limits.DialectMaxFileBytes, a binary file and one whose text does not
// encode back to its bytes are refusals (*Error).
func ReadDoc(abs, name, tool string) (*Doc, error) {
	f, fi, err := openRegular(abs, name, tool)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > limits.DialectMaxFileBytes {
		return nil, &Error{Refusal: Unencodable, Msg: fmt.Sprintf("%s %s: the file is %d bytes, more than the %d MiB a whole-text edit reads; edit it by line numbers (tools/edit)",
			tool, name, fi.Size(), limits.DialectMaxFileBytes/limits.MiB)}
	}
	enc, binary := fileEncodingOf(f)
	if binary {
		return nil, &Error{Refusal: Unencodable, Msg: fmt.Sprintf("%s %s: the file is binary, not text", tool, name)}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("%s %s: %w", tool, name, err)
	}
	raw, err := io.ReadAll(io.LimitReader(f, limits.DialectMaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: read: %w", tool, name, err)
	}
	body := bytes.TrimPrefix(raw, enc.BOM())
	text, exact := enc.Decode(body)
	if !exact {
		return nil, notExact(name, enc)
	}
	return &Doc{Abs: abs, Name: name, Text: text, Tag: sourceset.TagOf(raw), raw: raw, info: fi, enc: enc}, nil
}

// Encoding is the label of the doc's encoding (as tools/read reports it).
func (d *Doc) Encoding() string { return d.enc.Label() }

// Plan is a set of file changes committed together: every new content is
// encoded and written to a temporary file beside its target before any
// target changes (Stage), then all are renamed into place (Commit). A
// Plan is not safe for concurrent use.
type Plan struct {
	steps []*step
}

// step is one change of a plan.
type step struct {
	abs, name string
	doc       *Doc // the file as read, nil for a new file
	remove    bool
	data      []byte
	af        *atomicfile.File
}

// Put makes the plan give the file abs (called name) text: in doc's
// encoding and mode when doc (the file as read) is not nil, else as a new
// UTF-8 file. Text the encoding cannot represent is an Unencodable refusal.
func (p *Plan) Put(abs, name, text string, doc *Doc) error {
	var enc *textenc.Encoding
	if doc != nil {
		enc = doc.enc
	}
	body, err := enc.Encode(text)
	if err != nil {
		return unencodable("edit", name, err)
	}
	p.steps = append(p.steps, &step{abs: abs, name: name, doc: doc, data: append(append([]byte(nil), enc.BOM()...), body...)})
	return nil
}

// Remove makes the plan delete the file doc.
func (p *Plan) Remove(doc *Doc) {
	p.steps = append(p.steps, &step{abs: doc.Abs, name: doc.Name, doc: doc, remove: true})
}

// Commit stages every change, checks that no file read changed since
// (a Stale refusal, naming it, if one did), then puts all in place. On any
// failure before the first rename nothing has changed; a rename failing
// after others succeeded restores the files already replaced from their
// read bytes (the error says so). Only missing parent directories of new
// files may remain. The new tags are forgotten in sources.
func (p *Plan) Commit(ctx context.Context, sources *sourceset.Set) error {
	defer p.abort()
	for _, s := range p.steps {
		if err := s.stage(); err != nil {
			return err
		}
	}
	for _, s := range p.steps {
		if err := s.unchanged(); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("cancelled; no file was changed: %w", err)
	}
	for i, s := range p.steps {
		if err := s.commit(); err != nil {
			p.rollback(i)
			return fmt.Errorf("%w (the files changed before it were restored)", err)
		}
		if !s.remove {
			sources.Forget(s.abs, sourceset.TagOf(s.data))
		}
	}
	return nil
}

// stage writes the step's new content to its temporary file.
func (s *step) stage() error {
	if s.remove {
		return nil
	}
	var err error
	if s.doc != nil {
		s.af, err = atomicfile.Replace(s.abs, s.doc.info)
	} else {
		if err := os.MkdirAll(filepath.Dir(s.abs), dirMode); err != nil {
			return fmt.Errorf("%s: create parent directories: %w", s.name, err)
		}
		s.af, err = atomicfile.Create(s.abs, fileMode)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	if _, err := s.af.Write(s.data); err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	return nil
}

// unchanged checks that the step's file is as it was read (or still absent).
func (s *step) unchanged() error {
	now, err := os.ReadFile(s.abs)
	switch {
	case s.doc == nil && errors.Is(err, fs.ErrNotExist):
		return nil
	case s.doc != nil && err == nil && bytes.Equal(now, s.doc.raw):
		return nil
	}
	tag := ""
	if err == nil {
		tag = sourceset.TagOf(now)
	}
	return &Error{Refusal: Stale, Tag: tag, Msg: fmt.Sprintf("%s changed while the edit was being prepared; no file was changed", s.name)}
}

// commit puts the step's change in place.
func (s *step) commit() error {
	if s.remove {
		if err := os.Remove(s.abs); err != nil {
			return fmt.Errorf("delete %s: %w", s.name, err)
		}
		return nil
	}
	err := s.af.Commit()
	s.af = nil
	if err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	return nil
}

// rollback restores the files of the first n steps as they were read.
func (p *Plan) rollback(n int) {
	for _, s := range p.steps[:n] {
		if s.doc == nil {
			_ = os.Remove(s.abs)
			continue
		}
		_ = atomicfile.WriteFile(s.abs, s.doc.raw, s.doc.info.Mode())
	}
}

// abort discards the temporary files not committed.
func (p *Plan) abort() {
	for _, s := range p.steps {
		if s.af != nil {
			s.af.Abort()
		}
	}
}
