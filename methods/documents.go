package methods

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/toolrpc/toolrpc/internal/cut"
	"github.com/toolrpc/toolrpc/internal/documents"
	"github.com/toolrpc/toolrpc/internal/editor"
	"github.com/toolrpc/toolrpc/internal/lineedit"
	"github.com/toolrpc/toolrpc/internal/page"
	"github.com/toolrpc/toolrpc/internal/roots"
	"github.com/toolrpc/toolrpc/internal/search"
	"github.com/toolrpc/toolrpc/internal/sourceset"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/wire"
)

// editorInit is what initialize says about documents (SPEC §15), read from
// the raw params: LSP 3.17 members go.lsp.dev/protocol does not know.
type editorInit struct {
	Capabilities struct {
		General struct {
			PositionEncodings []string `json:"positionEncodings"`
		} `json:"general"`
		Workspace struct {
			ApplyEdit     bool `json:"applyEdit"`
			WorkspaceEdit struct {
				DocumentChanges         bool `json:"documentChanges"`
				ChangeAnnotationSupport *struct {
					GroupsOnLabel bool `json:"groupsOnLabel"`
				} `json:"changeAnnotationSupport"`
			} `json:"workspaceEdit"`
		} `json:"workspace"`
	} `json:"capabilities"`
	InitializationOptions struct {
		// Edits is "open" (the default, also ""), "editor" or "disk".
		Edits string `json:"edits"`
		// Review asks the editor to confirm each edit (needsConfirmation).
		Review bool `json:"review"`
	} `json:"initializationOptions"`
}

// startDocuments gives an LSP session its document store, and its editor when
// the client can apply versioned edits and the host did not choose disk
// (and, with edits "editor", edits of every file through it). It
// returns the capabilities to advertise.
func startDocuments(ctx context.Context, s *Session) (*wire.TextDocumentSync, string, error) {
	peer := rpc.PeerFrom(ctx)
	if peer == nil {
		return nil, "", nil
	}
	var in editorInit
	if raw := rpc.InitializeParams(ctx); raw != nil {
		_ = json.Unmarshal(raw, &in) // members of the wrong type are left out, as initialize's decoder did
	}
	mode := in.InitializationOptions.Edits
	switch mode {
	case "", editsOpen, editsEditor, editsDisk:
	default:
		return nil, "", rpc.Errorf(rpc.InvalidArgument, "initializationOptions.edits %q is not %q, %q or %q", mode, editsOpen, editsEditor, editsDisk)
	}
	enc := documents.Negotiate(in.Capabilities.General.PositionEncodings)
	s.docs = documents.NewStore(enc, func(p string) (string, bool) {
		rp, err := s.roots.Resolve(p)
		return rp.Abs, err == nil
	}, s.Logf)
	ws := in.Capabilities.Workspace
	capable := ws.ApplyEdit && ws.WorkspaceEdit.DocumentChanges
	if capable && mode != editsDisk {
		s.editor = editor.New(s.docs, peer, editor.Options{
			Annotations: ws.WorkspaceEdit.ChangeAnnotationSupport != nil,
			Confirm:     in.InitializationOptions.Review,
		})
	}
	if mode == editsEditor {
		s.editAll.on = capable
		if !capable {
			s.editAll.notice = fallbackNotice
		}
	}
	return &wire.TextDocumentSync{OpenClose: true, Change: 2, Save: true}, enc.String(), nil
}

// Notify hands the client's document-sync notifications to the session's
// store (SPEC §15). A panic is logged: bad input never ends the session.
func (t *Toolbox) Notify(method string, params json.RawMessage) {
	t.mu.Lock()
	s := t.session
	t.mu.Unlock()
	if s == nil || s.docs == nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			s.Logf("documents: panic in %s: %v\n%s", method, r, debug.Stack())
		}
	}()
	s.docs.Handle(method, params)
}

// bufferFor returns the editor's document for rp when the tools must use it
// instead of the file: held, and its text not the file's.
func bufferFor(s *Session, rp roots.Path) *documents.Doc {
	if s.docs == nil {
		return nil
	}
	return s.docs.Unsaved(rp.Abs)
}

// docNotice returns, once, why the editor's document for abs is not held.
func docNotice(s *Session, abs string) string {
	if s.docs == nil {
		return ""
	}
	return s.docs.Notice(abs)
}

// refuseUnsaved refuses a disk edit or write of a file whose buffer has
// unsaved changes (EDITOR_UNSAVED).
func refuseUnsaved(s *Session, tool string, rp roots.Path) error {
	d := bufferFor(s, rp)
	if d == nil {
		return nil
	}
	return rpc.Errorf(rpc.EditorUnsaved, "%s %s: the user has unsaved changes to this file in the editor (buffer version %d); "+
		"writing the file on disk would be overwritten by, or overwrite, them: nothing was written. Ask the user to save or discard them, then Read the file again",
		tool, rp.Display, d.Version).WithData(wire.StaleTagData{Tag: d.Tag()})
}

// inEditor reports the editor's document an edit or write of rp goes
// through, or nil when it goes to disk.
func inEditor(s *Session, rp roots.Path) *documents.Doc {
	if s.editor == nil || s.docs == nil {
		return nil
	}
	return s.docs.Get(rp.Abs)
}

// editInEditor is tools/edit of an open document: the ops are checked and
// applied to the buffer's text exactly as to a file, and the result is sent
// to the editor.
func editInEditor(ctx context.Context, s *Session, call *rpc.Call, d *documents.Doc, rp roots.Path, tag string, hunks []lineedit.Hunk) (any, error) {
	text, res, commit, err := lineedit.EditText(ctx, rp.Abs, rp.Display, tag, d.Text.Bytes(), hunks, s.sources)
	if err != nil {
		return nil, refusal(err)
	}
	if err := s.editor.Apply(ctx, d, text, editLabel(call, rp), rp.Display); err != nil {
		return nil, editorRefusal(err)
	}
	commit()
	res.Notice = joinNotice(res.Notice, inBufferNotice)
	return res, nil
}

// writeInEditor is tools/write of an open document.
func writeInEditor(ctx context.Context, s *Session, call *rpc.Call, d *documents.Doc, rp roots.Path, content string) (any, error) {
	old := d.Text.Bytes()
	text, notice := lineedit.UnshapeText(ctx, content, old)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := s.editor.Apply(ctx, d, text, editLabel(call, rp), rp.Display); err != nil {
		return nil, editorRefusal(err)
	}
	tag := sourceset.TagOf(text)
	s.sources.Forget(rp.Abs, tag)
	return &wire.WriteResult{Path: rp.Display, Root: wire.Root(rp.Root), Tag: tag, FileBytes: len(text),
		TotalLines: cut.CountLines(text), Notice: joinNotice(notice, inBufferNotice)}, nil
}

// inBufferNotice tells the model where an edit through the editor went.
const inBufferNotice = "Applied in the editor's open buffer (on the user's undo stack, not yet saved); the file on disk is unchanged."

// editLabel names the call to the user: "toolrpc: tools/edit docs/a.md".
func editLabel(call *rpc.Call, rp roots.Path) string {
	return fmt.Sprintf("toolrpc: %s %s", call.Method, rp.Display)
}

// editorRefusal maps an edit the editor did not apply to its wire error.
func editorRefusal(err error) error {
	e, ok := err.(*editor.Error)
	if !ok {
		return err
	}
	data := wire.EditorData{Tag: e.Tag, FailureReason: e.Reason}
	if e.Failure == editor.Stale {
		return rpc.Errorf(rpc.StaleTag, "%s", e.Msg).WithData(data)
	}
	return rpc.Errorf(rpc.EditNotApplied, "%s", e.Msg).WithData(data)
}

// joinNotice joins two notices.
func joinNotice(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " " + b
}

// readBuffer is tools/read of an open document whose text is not the file's.
func readBuffer(ctx context.Context, s *Session, d *documents.Doc, rp roots.Path, offset, limit int64) (any, error) {
	res, err := page.ReadText(ctx, rp.Abs, rp.Display, d.Text.Bytes(), offset, limit, s.sources)
	if err != nil {
		return nil, err
	}
	v := d.Version
	res.Root, res.Source, res.Version, res.Unsaved = wire.Root(rp.Root), "editor", &v, true
	res.Notice = joinNotice(res.Notice, "This is the editor's unsaved buffer, not the file on disk.")
	return res, nil
}

// overlay returns the unsaved buffers inside the roots as grep and glob
// take them (nil when there are none).
func overlay(s *Session) search.Overlay {
	if s.docs == nil {
		return nil
	}
	docs := s.docs.UnsavedAll()
	if len(docs) == 0 {
		return nil
	}
	ov := make(search.Overlay, len(docs))
	for _, d := range docs {
		ov[d.Abs] = d.Text.Bytes()
	}
	return ov
}

// editorOnlyNotice names the files a glob listed that exist only in the
// editor.
func editorOnlyNotice(s *Session, paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = s.roots.DisplayOf(p)
	}
	return fmt.Sprintf("Listed from the editor, not on disk yet (unsaved new files): %s.", strings.Join(bounded(names), ", "))
}
