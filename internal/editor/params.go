package editor

import (
	"github.com/toolrpc/toolrpc/internal/documents"
	"github.com/toolrpc/toolrpc/internal/rope"
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
		Kind         string `json:"kind,omitempty"` // "create": a CreateFile
		TextDocument *struct {
			URI string `json:"uri"`
			// Version is nil (null) for a document the editor has not
			// opened to the server: OptionalVersionedTextDocumentIdentifier.
			Version *int32 `json:"version"`
		} `json:"textDocument,omitempty"`
		Edits []textEdit `json:"edits,omitempty"`
		// A CreateFile's.
		URI     string         `json:"uri,omitempty"`
		Options *createOptions `json:"options,omitempty"`
	}
	createOptions struct {
		Overwrite      bool `json:"overwrite"`
		IgnoreIfExists bool `json:"ignoreIfExists"`
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
	v := d.Version
	return e.edit(d.URI, &v, d.Text, want, label, nil)
}

// fileParams is the applyEdit request replacing the text of f, a file the
// editor does not hold, by want: a TextDocumentEdit with a null version,
// after a CreateFile when f does not exist. The CreateFile never
// overwrites: a file that appeared meanwhile is kept (ignoreIfExists), and
// the edit then does not give the text wanted (EDIT_NOT_APPLIED).
func (e *Editor) fileParams(f File, want []byte, label string) applyParams {
	var pre []textDocumentEdit
	if f.Create {
		pre = []textDocumentEdit{{Kind: "create", URI: f.URI, Options: &createOptions{IgnoreIfExists: true}}}
	}
	return e.edit(f.URI, nil, rope.New(f.Old), want, label, pre)
}

// edit is the applyEdit request replacing old, the text of the document
// uri at version (nil: null), by want, after the changes pre.
func (e *Editor) edit(uri string, version *int32, old rope.Text, want []byte, label string, pre []textDocumentEdit) applyParams {
	start, oldEnd, newEnd := Diff(old.Bytes(), want)
	enc := e.docs.Encoding()
	l1, c1 := documents.Position(old, start, enc)
	l2, c2 := documents.Position(old, oldEnd, enc)
	if old.Len() == 0 {
		// An empty document's end is (0,0), which LSP clamps (1,0) to; but
		// an editor may show an empty file as one empty line and its
		// newline (Neovim's didOpen sends "\n"): (1,0) replaces that too.
		l2, c2 = 1, 0
	}
	te := textEdit{Range: rangeLSP{position{l1, c1}, position{l2, c2}}, NewText: string(want[start:newEnd])}
	tde := textDocumentEdit{TextDocument: &struct {
		URI     string `json:"uri"`
		Version *int32 `json:"version"`
	}{uri, version}}
	ws := workspaceEdit{}
	if e.opts.Annotations {
		te.AnnotationID = annotationID
		ws.ChangeAnnotations = map[string]changeAnnotation{annotationID: {Label: label, NeedsConfirmation: e.opts.Confirm}}
	}
	tde.Edits = []textEdit{te}
	ws.DocumentChanges = append(pre, tde)
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
