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

// TestApplyFileParams checks SPEC §15 (edits "editor"): a file the editor
// does not hold is edited with a null version; a new one is a CreateFile
// that never overwrites, then an edit replacing the whole empty document.
func TestApplyFileParams(t *testing.T) {
	abs := filepath.Join(t.TempDir(), "a.txt")
	uri := roots.PathURI(abs)
	e := New(documents.NewStore(documents.UTF16, func(p string) (string, bool) { return p, true }, t.Logf), nil, Options{})
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
	defer func(d time.Duration) { applyTimeout = d }(applyTimeout)
	applyTimeout = 50 * time.Millisecond
	abs := filepath.Join(t.TempDir(), "a.txt")
	s := documents.NewStore(documents.UTF16, func(p string) (string, bool) { return p, true }, t.Logf)
	err := New(s, &answer{reply: `{"applied":true}`}, Options{}).ApplyFile(context.Background(),
		File{URI: roots.PathURI(abs), Abs: abs, Old: []byte("one\n")}, []byte("two\n"), "l", "a.txt")
	e, ok := err.(*Error)
	if !ok || e.Failure != NotApplied || !strings.Contains(e.Msg, "a buffer the server cannot see") || !strings.Contains(e.Msg, "the file on disk is unchanged") {
		t.Fatalf("err = %v, want NotApplied naming the unseen buffer", err)
	}
}

// opens is a Caller whose editor opens the file to the server with the
// edited text before it answers, as Neovim does through attach_all.
type opens struct {
	s    *documents.Store
	uri  string
	text string
}

func (o *opens) Call(_ context.Context, _ string, _ any) (json.RawMessage, error) {
	b, _ := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": o.uri, "languageId": "t", "version": 0, "text": o.text}})
	o.s.Handle("textDocument/didOpen", b)
	return json.RawMessage(`{"applied":true}`), nil
}

// TestApplyFileProvenByDidOpen checks SPEC §15 (edits "editor"): the
// editor's didOpen of the file carrying exactly the edited text is the
// proof; one carrying another text is not.
func TestApplyFileProvenByDidOpen(t *testing.T) {
	defer func(d time.Duration) { applyTimeout = d }(applyTimeout)
	applyTimeout = 50 * time.Millisecond
	for _, tc := range []struct {
		opened string
		ok     bool
	}{{"two\n", true}, {"one\n", false}} {
		abs := filepath.Join(t.TempDir(), "a.txt")
		uri := roots.PathURI(abs)
		s := documents.NewStore(documents.UTF16, func(p string) (string, bool) { return p, true }, t.Logf)
		err := New(s, &opens{s: s, uri: uri, text: tc.opened}, Options{}).ApplyFile(context.Background(),
			File{URI: uri, Abs: abs, Old: []byte("one\n")}, []byte("two\n"), "l", "a.txt")
		if (err == nil) != tc.ok {
			t.Fatalf("opened with %q: err = %v, want ok %v", tc.opened, err, tc.ok)
		}
	}
}
