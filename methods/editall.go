package methods

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/toolrpc/toolrpc/internal/cut"
	"github.com/toolrpc/toolrpc/internal/editor"
	"github.com/toolrpc/toolrpc/internal/lineedit"
	"github.com/toolrpc/toolrpc/internal/roots"
	"github.com/toolrpc/toolrpc/internal/sourceset"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/wire"
)

// The values of initializationOptions.edits (SPEC §15).
const (
	// editsOpen (the default, also ""): documents the editor holds are
	// edited through it, other files on disk.
	editsOpen = "open"
	// editsEditor: every file is edited through the editor; files it does
	// not hold are opened, or created, by the edit.
	editsEditor = "editor"
	// editsDisk: every file on disk.
	editsDisk = "disk"
)

// editAll is the session's edits "editor" state: whether files the editor
// does not hold are edited through it, and the notice said once when the
// host asked for it and the client cannot.
type editAll struct {
	on bool

	once   sync.Once
	notice string // "" when there is nothing to say
}

// fallbackNotice is said once when edits "editor" was asked of a client
// that cannot apply workspace edits.
const fallbackNotice = `initializationOptions.edits "editor" needs a client that declares workspace.applyEdit and ` +
	`workspace.workspaceEdit.documentChanges: this one does not, so edits are written to disk.`

// takeNotice returns the fallback notice the first time, then "".
func (a *editAll) takeNotice() string {
	n := ""
	a.once.Do(func() { n = a.notice })
	return n
}

// viaEditor reports whether an edit or write of rp, a file the editor does
// not hold, goes through the editor (edits "editor"), and its text on disk
// (nil: no file). A file the editor could not hold as a document — not
// plain UTF-8 text, or too large for a whole-text edit — goes to disk, and
// so does anything the scratch root holds; the disk path then refuses what
// it refuses.
func viaEditor(s *Session, rp roots.Path) (old []byte, exists, ok bool) {
	if !editAllOn(s, rp) {
		return nil, false, false
	}
	doc, exists, err := readDoc(rp, "edit")
	if !routesToEditor(rp, doc, exists, err) {
		return nil, false, false
	}
	if !exists {
		return nil, false, true
	}
	return []byte(doc.Text), true, true
}

// editAllOn reports whether edits "editor" is in force for rp.
func editAllOn(s *Session, rp roots.Path) bool {
	return s.editAll.on && s.editor != nil && rp.Root != roots.Scratch
}

// routesToEditor reports whether the file rp, read as doc (exists, err),
// can be edited through the editor: plain UTF-8 text, or no file.
func routesToEditor(rp roots.Path, doc *lineedit.Doc, exists bool, err error) bool {
	switch {
	case err != nil:
		return false
	case !exists:
		_, err := os.Lstat(rp.Abs)
		return errors.Is(err, fs.ErrNotExist) // not a dangling link, nor a file it may not stat: the disk path says why
	}
	return doc.Encoding() == "" // positions in the editor's decoded text are not the file's bytes
}

// editFileInEditor is tools/edit of a file the editor does not hold, with
// edits "editor": the ops are checked against the file's text as Edit
// checks them, and the edited text is sent to the editor.
func editFileInEditor(ctx context.Context, s *Session, call *rpc.Call, rp roots.Path, old []byte, tag string, hunks []lineedit.Hunk) (any, error) {
	if cur := sourceset.TagOf(old); cur != tag {
		return nil, refusal(&lineedit.Error{Refusal: lineedit.Stale, Tag: cur,
			Msg: fmt.Sprintf("edit %s: tag %s is stale; the file's tag is now %s: Read it again", rp.Display, tag, cur)})
	}
	text, res, commit, err := lineedit.EditText(ctx, rp.Abs, rp.Display, tag, old, hunks, s.sources)
	if err != nil {
		return nil, refusal(err)
	}
	f := editor.File{URI: roots.PathURI(rp.Abs), Abs: rp.Abs, Old: old}
	if err := s.editor.ApplyFile(ctx, f, text, editLabel(call, rp), rp.Display); err != nil {
		return nil, editorRefusal(err)
	}
	commit()
	res.Notice = joinNotice(res.Notice, inBufferNotice)
	return res, nil
}

// writeFileInEditor is tools/write of a file the editor does not hold,
// with edits "editor"; a file that does not exist is created in the editor
// (CreateFile), not on disk.
func writeFileInEditor(ctx context.Context, s *Session, call *rpc.Call, rp roots.Path, old []byte, exists bool, content string) (any, error) {
	text, notice := lineedit.UnshapeText(ctx, content, old)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f := editor.File{URI: roots.PathURI(rp.Abs), Abs: rp.Abs, Old: old, Create: !exists}
	if err := s.editor.ApplyFile(ctx, f, text, editLabel(call, rp), rp.Display); err != nil {
		return nil, editorRefusal(err)
	}
	tag := sourceset.TagOf(text)
	s.sources.Forget(rp.Abs, tag)
	where := inBufferNotice
	if !exists {
		where = newInBufferNotice
	}
	return &wire.WriteResult{Path: rp.Display, Root: wire.Root(rp.Root), Tag: tag, FileBytes: len(text),
		TotalLines: cut.CountLines(text), Created: !exists, Notice: joinNotice(notice, where)}, nil
}

// newInBufferNotice tells the model where a write of a new file through
// the editor went.
const newInBufferNotice = "Created in the editor's open buffer (on the user's undo stack, not yet saved); the file exists on disk only once the user saves it."
