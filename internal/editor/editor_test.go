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
