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

// shortTimeout shortens applyTimeout for the test.
func shortTimeout(t *testing.T) {
	d := applyTimeout
	applyTimeout = 50 * time.Millisecond
	t.Cleanup(func() { applyTimeout = d })
}

// newStore is a store of UTF-16 positions holding every path.
func newStore(t *testing.T) *documents.Store {
	return documents.NewStore(documents.UTF16, func(p string) (string, bool) { return p, true }, t.Logf)
}

func openDoc(t *testing.T, text string) (*documents.Store, *documents.Doc) {
	dir := t.TempDir()
	abs := filepath.Join(dir, "a.txt")
	s := newStore(t)
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
	shortTimeout(t)
	s, d := openDoc(t, "one\n")
	err := New(s, &answer{reply: `{"applied":true}`}, Options{}).Apply(context.Background(), d, []byte("two\n"), "l", "a.txt")
	e, ok := err.(*Error)
	if !ok || e.Failure != NotApplied || !strings.Contains(e.Msg, "did not bring the buffer") {
		t.Fatalf("err = %v, want NotApplied after the timeout", err)
	}
	// The editor said it applied the edit: the message must not claim the
	// buffer is unchanged (a real Emacs's buffer did change in that case).
	if !strings.Contains(e.Msg, "the editor may have applied it: check the buffer") || strings.Contains(e.Msg, "unchanged") {
		t.Fatalf("message %q: want it to say the editor may have applied the edit", e.Msg)
	}
}

// scripted is a Caller whose editor first sends the store a notification
// (none when method is ""), as a user's typing or the editor's didOpen
// would, then answers with reply, or with err.
type scripted struct {
	s      *documents.Store
	method string
	params map[string]any
	reply  string
	err    error
}

func (c *scripted) Call(_ context.Context, _ string, _ any) (json.RawMessage, error) {
	if c.method != "" {
		b, _ := json.Marshal(c.params)
		c.s.Handle(c.method, b)
	}
	if c.err != nil {
		return nil, c.err
	}
	return json.RawMessage(c.reply), nil
}

// TestErrorReply checks SPEC §15: an editor's error reply is STALE_TAG with
// the buffer's tag when the user's typing moved the text on, else
// EDIT_NOT_APPLIED, each with the editor's reason.
func TestErrorReply(t *testing.T) {
	for _, typed := range []bool{false, true} {
		s, d := openDoc(t, "one\n")
		c := &scripted{s: s, err: fmt.Errorf("jsonrpc error -32001: document version mismatch")}
		if typed {
			c.method, c.params = "textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": d.URI, "version": 5},
				"contentChanges": []map[string]any{{"text": "typed\n"}}}
		}
		err := New(s, c, Options{}).Apply(context.Background(), d, []byte("two\n"), "l", "a.txt")
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

// TestApplyFileParams checks SPEC §15 (edits "editor"): a file the editor
// does not hold is edited with a null version; a new one is a CreateFile
// that never overwrites, then an edit replacing the whole empty document.
func TestApplyFileParams(t *testing.T) {
	abs := filepath.Join(t.TempDir(), "a.txt")
	uri := roots.PathURI(abs)
	e := New(newStore(t), nil, Options{})
	for _, tc := range []struct {
		name string
		f    File
		want string
	}{
		{"existing", File{URI: uri, Abs: abs, Old: []byte("one\ntwo\n")},
			fmt.Sprintf(`{"label":"l","edit":{"documentChanges":[{"textDocument":{"uri":%q,"version":null},`+
				`"edits":[{"range":{"start":{"line":1,"character":0},"end":{"line":1,"character":3}},"newText":"TWO"}]}]}}`, uri)},
		{"new", File{URI: uri, Abs: abs, Create: true},
			fmt.Sprintf(`{"label":"l","edit":{"documentChanges":[{"kind":"create","uri":%q,"options":{"overwrite":false,"ignoreIfExists":true}},`+
				`{"textDocument":{"uri":%q,"version":null},`+
				`"edits":[{"range":{"start":{"line":0,"character":0},"end":{"line":1,"character":0}},"newText":"one\nTWO\n"}]}]}}`, uri, uri)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(e.fileParams(tc.f, []byte("one\nTWO\n"), "l"))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Fatalf("params\n got %s\nwant %s", b, tc.want)
			}
		})
	}
}

// TestApplyFileUnseenIsNotApplied checks SPEC §15 (edits "editor"): an
// editor that answers applied: true for a file it does not hold but never
// opens it to the server fails EDIT_NOT_APPLIED after the stated time, the
// message saying the edit may be in a buffer the server cannot see.
func TestApplyFileUnseenIsNotApplied(t *testing.T) {
	shortTimeout(t)
	abs := filepath.Join(t.TempDir(), "a.txt")
	s := newStore(t)
	err := New(s, &answer{reply: `{"applied":true}`}, Options{}).ApplyFile(context.Background(),
		File{URI: roots.PathURI(abs), Abs: abs, Old: []byte("one\n")}, []byte("two\n"), "l", "a.txt")
	e, ok := err.(*Error)
	if !ok || e.Failure != NotApplied || !strings.Contains(e.Msg, "a buffer the server cannot see") || !strings.Contains(e.Msg, "the file on disk is unchanged") {
		t.Fatalf("err = %v, want NotApplied naming the unseen buffer", err)
	}
}

// TestApplyFileProvenByDidOpen checks SPEC §15 (edits "editor"): the
// editor's didOpen of the file carrying exactly the edited text is the
// proof; one carrying another text is not, and is STALE_TAG with that
// text's tag.
func TestApplyFileProvenByDidOpen(t *testing.T) {
	shortTimeout(t)
	for _, tc := range []struct {
		opened string
		ok     bool
	}{{"two\n", true}, {"one\n", false}} {
		abs := filepath.Join(t.TempDir(), "a.txt")
		uri := roots.PathURI(abs)
		s := newStore(t)
		opens := &scripted{s: s, method: "textDocument/didOpen", reply: `{"applied":true}`,
			params: map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "t", "version": 0, "text": tc.opened}}}
		err := New(s, opens, Options{}).ApplyFile(context.Background(),
			File{URI: uri, Abs: abs, Old: []byte("one\n")}, []byte("two\n"), "l", "a.txt")
		if (err == nil) != tc.ok {
			t.Fatalf("opened with %q: err = %v, want ok %v", tc.opened, err, tc.ok)
		}
		if e, ok := err.(*Error); !tc.ok && (!ok || e.Failure != Stale || e.Tag != s.Get(abs).Tag()) {
			t.Fatalf("opened with %q: err = %v, want Stale with the buffer's tag", tc.opened, err)
		}
	}
}
