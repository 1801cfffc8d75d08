package editor

import (
	"github.com/toolrpc/toolrpc/internal/documents"
)

// LSP's WorkspaceEdit pieces, as the editor is sent them.
type (
	position struct {
		Line      int `json:"line"`
		Character int `json:"character"`
	}
	rangeLSP struct {
		Start position `json:"start"`
		End   position `json:"end"`
	}
	textEdit struct {
		Range        rangeLSP `json:"range"`
		NewText      string   `json:"newText"`
		AnnotationID string   `json:"annotationId,omitempty"`
	}
	textDocumentEdit struct {
		TextDocument struct {
			URI     string `json:"uri"`
			Version int32  `json:"version"`
		} `json:"textDocument"`
		Edits []textEdit `json:"edits"`
	}
	changeAnnotation struct {
		Label             string `json:"label"`
		NeedsConfirmation bool   `json:"needsConfirmation,omitempty"`
	}
	workspaceEdit struct {
		DocumentChanges   []textDocumentEdit          `json:"documentChanges"`
		ChangeAnnotations map[string]changeAnnotation `json:"changeAnnotations,omitempty"`
	}
	applyParams struct {
		Label string        `json:"label"`
		Edit  workspaceEdit `json:"edit"`
	}
)

// annotationID names toolrpc's change annotation.
const annotationID = "toolrpc"

// params is the applyEdit request replacing d's text by want: one TextEdit
// over the span where the two differ, against d's version.
func (e *Editor) params(d *documents.Doc, want []byte, label string) applyParams {
	start, oldEnd, newEnd := Diff(d.Text.Bytes(), want)
	enc := e.docs.Encoding()
	l1, c1 := documents.Position(d.Text, start, enc)
	l2, c2 := documents.Position(d.Text, oldEnd, enc)
	te := textEdit{Range: rangeLSP{position{l1, c1}, position{l2, c2}}, NewText: string(want[start:newEnd])}
	var tde textDocumentEdit
	tde.TextDocument.URI, tde.TextDocument.Version = d.URI, d.Version
	ws := workspaceEdit{}
	if e.opts.Annotations {
		te.AnnotationID = annotationID
		ws.ChangeAnnotations = map[string]changeAnnotation{annotationID: {Label: label, NeedsConfirmation: e.opts.Confirm}}
	}
	tde.Edits = []textEdit{te}
	ws.DocumentChanges = []textDocumentEdit{tde}
	return applyParams{Label: label, Edit: ws}
}

// Diff returns where old and new differ: old[start:oldEnd] is replaced by
// new[start:newEnd]. The cut never falls inside a UTF-8 sequence or a
// "\r\n".
func Diff(old, new []byte) (start, oldEnd, newEnd int) {
	n := min(len(old), len(new))
	for start < n && old[start] == new[start] {
		start++
	}
	for start > 0 && (isCont(old, start) || isCont(new, start) || splitsCRLF(old, start) || splitsCRLF(new, start)) {
		start--
	}
	oldEnd, newEnd = len(old), len(new)
	for oldEnd > start && newEnd > start && old[oldEnd-1] == new[newEnd-1] {
		oldEnd--
		newEnd--
	}
	for oldEnd < len(old) && (isCont(old, oldEnd) || isCont(new, newEnd) || splitsCRLF(old, oldEnd) || splitsCRLF(new, newEnd)) {
		oldEnd++
		newEnd++
	}
	return start, oldEnd, newEnd
}

// isCont reports whether b[i] continues a UTF-8 sequence.
func isCont(b []byte, i int) bool { return i < len(b) && b[i]&0xC0 == 0x80 }

// splitsCRLF reports whether i falls between a "\r" and its "\n".
func splitsCRLF(b []byte, i int) bool { return i > 0 && i < len(b) && b[i-1] == '\r' && b[i] == '\n' }
