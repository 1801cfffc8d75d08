package editor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolrpc/toolrpc/internal/documents"
	"github.com/toolrpc/toolrpc/limits"
)

// Caller sends a request to the client and returns its reply (rpc.Peer).
type Caller interface {
	Call(ctx context.Context, method string, params any) (json.RawMessage, error)
}

// Options are what the client declared and the host asked for.
type Options struct {
	// Annotations: the client supports change annotations.
	Annotations bool
	// Confirm asks the editor to have the user confirm each edit
	// (needsConfirmation; needs Annotations).
	Confirm bool
}

// Editor sends edits of open documents to the client.
type Editor struct {
	docs *documents.Store
	peer Caller
	opts Options
}

// applyTimeout is limits.EditorApplyTimeout; tests shorten it.
var applyTimeout = limits.EditorApplyTimeout

// New returns an Editor sending edits of docs' documents to peer.
func New(docs *documents.Store, peer Caller, opts Options) *Editor {
	return &Editor{docs: docs, peer: peer, opts: opts}
}

// Failure says why an edit did not land.
type Failure int

// The failures of Apply.
const (
	// Stale: the buffer's text is no longer the text the edit was made
	// against (the user typed); Tag is its tag now.
	Stale Failure = iota + 1
	// NotApplied: the editor refused, failed, or did not bring the buffer to
	// the edited text within limits.EditorApplyTimeout.
	NotApplied
)

// Error is an edit that did not land in the buffer.
type Error struct {
	Failure Failure
	// Tag is the buffer's tag now (Stale; "" when the document is closed).
	Tag string
	// Reason is the editor's failureReason or error message, if it gave one.
	Reason string
	// Msg is the whole message.
	Msg string
}

// Error implements error.
func (e *Error) Error() string { return e.Msg }

// applyResult is LSP's ApplyWorkspaceEditResult.
type applyResult struct {
	Applied       bool   `json:"applied"`
	FailureReason string `json:"failureReason"`
}

// Apply replaces the text of d (the version the edit was made against) by
// want, through the editor, and returns once the editor has replied and the
// buffer holds want. label names the edit to the user. name names the file
// in messages.
func (e *Editor) Apply(ctx context.Context, d *documents.Doc, want []byte, label, name string) error {
	return e.send(ctx, d.Abs, e.params(d, want, label), want, name, func(reason, what string, applied bool) error {
		return e.failed(d, name, reason, what, applied)
	})
}

// File is a file the editor does not hold, to be edited through it (SPEC
// §15, edits "editor"): the editor opens it, or creates it, and applies the
// edit in its buffer.
type File struct {
	// URI is the file: URI of the file; Abs its absolute path, as the
	// documents' Resolver gives it.
	URI, Abs string
	// Old is the text the edit was made against: the file's on disk
	// (UTF-8), or nothing for a new file.
	Old []byte
	// Create: the file does not exist; the editor is sent a CreateFile
	// first.
	Create bool
}

// ApplyFile replaces the text of f by want through the editor, and returns
// once the editor has replied and has opened the document to the server
// (didOpen, and didChanges) holding exactly want. An editor that applies the
// edit but never shows the server the document is NotApplied after
// limits.EditorApplyTimeout: the server cannot see the buffer, and says so.
// One that shows it with another text (the file changed on disk before the
// editor loaded it, or the user typed) is Stale, with that text's tag.
func (e *Editor) ApplyFile(ctx context.Context, f File, want []byte, label, name string) error {
	return e.send(ctx, f.Abs, e.fileParams(f, want, label), want, name, func(reason, what string, applied bool) error {
		because := ""
		if reason != "" {
			because = fmt.Sprintf(" (%s)", reason)
		}
		if cur := e.docs.Get(f.Abs); cur != nil {
			return &Error{Failure: Stale, Tag: cur.Tag(), Reason: reason,
				Msg: fmt.Sprintf("edit %s: %s%s; the editor holds the file with another text than the one the edit was made against "+
					"(it changed on disk before the editor loaded it, or the user typed): check its buffer; its tag is now %s: Read it again",
					name, what, because, cur.Tag())}
		}
		if applied {
			what += fmt.Sprintf("; if the editor did apply it, the edit is in a buffer the server cannot see (the editor did not open %s to it): "+
				"ask the user to check the buffer before editing the file again", name)
		}
		return &Error{Failure: NotApplied, Reason: reason, Msg: fmt.Sprintf("edit %s: %s%s; the file on disk is unchanged", name, what, because)}
	})
}

// send sends params (an edit of the file abs to want) and waits for the
// editor's reply and the document holding want. failed makes the error of
// an edit that did not land; applied: the editor answered applied: true.
func (e *Editor) send(ctx context.Context, abs string, params applyParams, want []byte, name string, failed func(reason, what string, applied bool) error) error {
	w := e.docs.Watch(abs, want)
	defer w.Stop()
	wait, cancel := context.WithTimeout(ctx, applyTimeout)
	defer cancel()
	type reply struct {
		res json.RawMessage
		err error
	}
	replies := make(chan reply, 1)
	go func() {
		r, err := e.peer.Call(wait, "workspace/applyEdit", params)
		replies <- reply{r, err}
	}()
	var got *reply
	var res applyResult
	changed := w.C()
	matched, closed := false, false
	for {
		if got != nil && (matched || closed || got.err != nil || !res.Applied) {
			break
		}
		select {
		case r := <-replies:
			got = &r
			if r.err == nil {
				if err := json.Unmarshal(r.res, &res); err != nil {
					got.err = fmt.Errorf("unreadable reply: %v", err)
				}
			}
		case <-changed:
			changed = nil
			matched, _, closed = w.State()
		case <-wait.Done():
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("edit %s: cancelled; the editor may still apply it: %w", name, err)
			}
			if got != nil && res.Applied {
				return failed("", fmt.Sprintf("the editor answered applied: true, but did not bring the buffer to the edited text within %v", applyTimeout), true)
			}
			return failed("", fmt.Sprintf("the editor did not bring the buffer to the edited text within %v", applyTimeout), false)
		}
	}
	switch {
	case got.err != nil:
		if errors.Is(got.err, context.Canceled) && ctx.Err() != nil {
			return fmt.Errorf("edit %s: cancelled: %w", name, ctx.Err())
		}
		return failed(got.err.Error(), "the editor answered with an error", false)
	case !res.Applied:
		return failed(res.FailureReason, "the editor refused the edit", false)
	case closed && !matched:
		return &Error{Failure: NotApplied, Msg: fmt.Sprintf("edit %s: the editor closed the document before the edit reached it; nothing was edited there", name)}
	}
	return nil
}

// failed returns the error of an edit that did not land: Stale when the
// buffer moved on from d, else NotApplied. applied: the editor answered
// applied: true, so its buffer may hold the edit though no didChange showed
// it; the message then says so rather than that nothing changed.
func (e *Editor) failed(d *documents.Doc, name, reason, what string, applied bool) error {
	because := ""
	if reason != "" {
		because = fmt.Sprintf(" (%s)", reason)
	}
	outcome := "nothing was applied"
	if applied {
		outcome = "the editor may have applied it: check the buffer before editing it again"
	}
	if cur := e.docs.Get(d.Abs); cur != nil && cur.Tag() != d.Tag() {
		return &Error{Failure: Stale, Tag: cur.Tag(), Reason: reason,
			Msg: fmt.Sprintf("edit %s: the buffer changed in the editor while the edit was sent; %s%s; %s; its tag is now %s: Read it again",
				name, what, because, outcome, cur.Tag())}
	}
	if !applied {
		outcome = "the buffer is unchanged"
	}
	return &Error{Failure: NotApplied, Reason: reason,
		Msg: fmt.Sprintf("edit %s: %s%s; %s", name, what, because, outcome)}
}
