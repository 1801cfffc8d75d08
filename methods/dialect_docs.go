package methods

import (
	"context"

	"github.com/toolrpc/toolrpc/internal/documents"
	"github.com/toolrpc/toolrpc/internal/editor"
	"github.com/toolrpc/toolrpc/internal/lineedit"
	"github.com/toolrpc/toolrpc/internal/roots"
	"github.com/toolrpc/toolrpc/internal/sourceset"
)

// The dialects' edits follow SPEC §15 as tools/edit and tools/write do: a
// file open in an editor that applies edits is read from and edited in its
// buffer (workspace/applyEdit); with edits "editor", so is a file it does
// not hold (apply_patch: a patch that changes one file); without one, a
// disk write under a buffer with unsaved changes is EDITOR_UNSAVED.

// dialectDoc is what a dialect edit read of one file: the editor's
// document it goes through, or the file on disk.
type dialectDoc struct {
	rp   roots.Path
	buf  *documents.Doc // the editor's document; nil: the disk
	doc  *lineedit.Doc  // the file on disk; nil with buf, or no file
	Text string
	// via: edits "editor" sends the edit of this file, which the editor
	// does not hold, through the editor (SPEC §15).
	via bool
}

// toEditor reports whether the edit goes through the editor.
func (f *dialectDoc) toEditor() bool { return f.buf != nil || f.via }

// exists reports whether there is a text to edit.
func (f *dialectDoc) exists() bool { return f.buf != nil || f.doc != nil }

// readEditDoc reads rp for a dialect edit by tool, under its lock: the
// editor's document when it holds rp, else the file, refused with
// EDITOR_UNSAVED under a buffer with unsaved changes.
func readEditDoc(s *Session, rp roots.Path, tool string) (*dialectDoc, error) {
	if d := inEditor(s, rp); d != nil {
		return &dialectDoc{rp: rp, buf: d, Text: d.Text.String()}, nil
	}
	if err := refuseUnsaved(s, tool, rp); err != nil {
		return nil, err
	}
	doc, exists, err := readDoc(rp, tool)
	via := editAllOn(s, rp) && routesToEditor(rp, doc, exists, err)
	if err != nil || !exists {
		return &dialectDoc{rp: rp, via: via}, err
	}
	return &dialectDoc{rp: rp, doc: doc, Text: doc.Text, via: via}, nil
}

// readViewDoc reads rp for a dialect's view: an unsaved buffer's text, as
// tools/read shows it, else the file. unsaved reports the buffer.
func readViewDoc(s *Session, rp roots.Path, tool string) (text string, exists, unsaved bool, err error) {
	if d := bufferFor(s, rp); d != nil {
		return d.Text.String(), true, true, nil
	}
	doc, exists, err := readDoc(rp, tool)
	if err != nil || !exists {
		return "", exists, false, err
	}
	return doc.Text, true, false, nil
}

// commit replaces f's text by text: in the editor's buffer, or atomically
// on disk. inBuffer reports the editor.
func (f *dialectDoc) commit(ctx context.Context, s *Session, method, text string) (inBuffer bool, err error) {
	if f.buf != nil {
		if err := s.editor.Apply(ctx, f.buf, []byte(text), "toolrpc: "+method+" "+f.rp.Display, f.rp.Display); err != nil {
			return false, editorRefusal(err)
		}
		s.sources.Forget(f.rp.Abs, sourceset.TagOf([]byte(text)))
		return true, nil
	}
	if f.via {
		ef := editor.File{URI: roots.PathURI(f.rp.Abs), Abs: f.rp.Abs, Create: f.doc == nil}
		if f.doc != nil {
			ef.Old = []byte(f.doc.Text)
		}
		if err := s.editor.ApplyFile(ctx, ef, []byte(text), "toolrpc: "+method+" "+f.rp.Display, f.rp.Display); err != nil {
			return false, editorRefusal(err)
		}
		s.sources.Forget(f.rp.Abs, sourceset.TagOf([]byte(text)))
		return true, nil
	}
	var plan lineedit.Plan
	if err := plan.Put(f.rp.Abs, f.rp.Display, text, f.doc); err != nil {
		return false, refusal(err)
	}
	return false, refusal(plan.Commit(ctx, s.sources))
}

// bufferNote is the line a dialect's success text ends with when the edit
// went to the editor's buffer.
func bufferNote(inBuffer bool) string {
	if !inBuffer {
		return ""
	}
	return "\nNote: " + inBufferNotice
}
