package editor

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolrpc/toolrpc/internal/documents"
	"github.com/toolrpc/toolrpc/internal/roots"
)

// answer is a Caller that records the request and answers with reply.
type answer struct {
	params any
	reply  string
}

func (a *answer) Call(_ context.Context, method string, params any) (json.RawMessage, error) {
	a.params = params
	return json.RawMessage(a.reply), nil
}

func openDoc(t *testing.T, text string) (*documents.Store, *documents.Doc) {
	dir := t.TempDir()
	abs := filepath.Join(dir, "a.txt")
	s := documents.NewStore(documents.UTF16, func(p string) (string, bool) { return p, true }, t.Logf)
	b, _ := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": roots.PathURI(abs), "languageId": "t", "version": 4, "text": text}})
	s.Handle("textDocument/didOpen", b)
	return s, s.Get(abs)
}

// TestApplyParams checks SPEC §15: one versioned TextDocumentEdit over the
// changed span, labelled, with a change annotation asking for confirmation
// when the host asked for review.
func TestApplyParams(t *testing.T) {
	s, d := openDoc(t, "one\ntwo😀x\nthree\n")
	e := New(s, nil, Options{Annotations: true, Confirm: true})
	p := e.params(d, []byte("one\ntwo😀y\nthree\n"), "toolrpc: tools/edit a.txt")
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`{"label":"toolrpc: tools/edit a.txt","edit":{"documentChanges":[{"textDocument":{"uri":%q,"version":4},`+
		`"edits":[{"range":{"start":{"line":1,"character":5},"end":{"line":1,"character":6}},"newText":"y","annotationId":"toolrpc"}]}],`+
		`"changeAnnotations":{"toolrpc":{"label":"toolrpc: tools/edit a.txt","needsConfirmation":true}}}}`, d.URI)
	if string(b) != want {
		t.Fatalf("params\n got %s\nwant %s", b, want)
	}
}

// TestAppliedWithoutChangeIsNotApplied checks SPEC §15: an editor's
// applied: true with no didChange bringing the buffer to the edited text
// fails EDIT_NOT_APPLIED after the stated time, the buffer untouched.
func TestAppliedWithoutChangeIsNotApplied(t *testing.T) {
	defer func(d time.Duration) { applyTimeout = d }(applyTimeout)
	applyTimeout = 50 * time.Millisecond
	s, d := openDoc(t, "one\n")
	err := New(s, &answer{reply: `{"applied":true}`}, Options{}).Apply(context.Background(), d, []byte("two\n"), "l", "a.txt")
	e, ok := err.(*Error)
	if !ok || e.Failure != NotApplied || !strings.Contains(e.Msg, "did not bring the buffer") {
		t.Fatalf("err = %v, want NotApplied after the timeout", err)
	}
}

// refuse is a Caller whose editor answers with an error reply (eglot on a
// version mismatch), after the user typed when typed is set.
type refuse struct {
	s     *documents.Store
	uri   string
	typed bool
}

func (r *refuse) Call(_ context.Context, _ string, _ any) (json.RawMessage, error) {
	if r.typed {
		b, _ := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": r.uri, "version": 5},
			"contentChanges": []map[string]any{{"text": "typed\n"}}})
		r.s.Handle("textDocument/didChange", b)
	}
	return nil, fmt.Errorf("jsonrpc error -32001: document version mismatch")
}

// TestErrorReply checks SPEC §15: an editor's error reply is STALE_TAG with
// the buffer's tag when the user's typing moved the text on, else
// EDIT_NOT_APPLIED, each with the editor's reason.
func TestErrorReply(t *testing.T) {
	for _, typed := range []bool{false, true} {
		s, d := openDoc(t, "one\n")
		err := New(s, &refuse{s: s, uri: d.URI, typed: typed}, Options{}).Apply(context.Background(), d, []byte("two\n"), "l", "a.txt")
		e, ok := err.(*Error)
		if !ok || !strings.Contains(e.Reason, "version mismatch") {
			t.Fatalf("typed %v: err = %v, want the editor's reason", typed, err)
		}
		want, tag := NotApplied, ""
		if typed {
			want, tag = Stale, s.Get(d.Abs).Tag()
		}
		if e.Failure != want || e.Tag != tag {
			t.Fatalf("typed %v: failure %v tag %q, want %v %q", typed, e.Failure, e.Tag, want, tag)
		}
	}
}
