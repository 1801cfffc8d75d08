package documents

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/toolrpc/toolrpc/internal/logging"
	"github.com/toolrpc/toolrpc/internal/roots"
	"github.com/toolrpc/toolrpc/internal/rope"
	"github.com/toolrpc/toolrpc/internal/sourceset"
	"github.com/toolrpc/toolrpc/limits"
)

// Resolver maps the path of a file: URI to the absolute path the tools
// know the file by, or reports it outside the roots.
type Resolver func(path string) (abs string, ok bool)

// Doc is one version of an open document. It never changes: a change makes
// a new Doc.
type Doc struct {
	// URI is the document's URI as the client sent it.
	URI string
	// Abs is the file's absolute path, as the tools resolve it.
	Abs string
	// LanguageID is the client's language id.
	LanguageID string
	// Version is the client's version of the text.
	Version int32
	// Text is the document's text.
	Text rope.Text

	tagOnce sync.Once
	tag     string
}

// Tag returns the tag of the text (SPEC §8), as a file with that content
// would have.
func (d *Doc) Tag() string {
	d.tagOnce.Do(func() { d.tag = sourceset.TagSum(d.Text.CRC32C()) })
	return d.tag
}

// Store holds a session's open documents. Its methods may be called
// concurrently; the client's notifications must be handed to Handle in the
// order they arrived.
type Store struct {
	enc     Encoding
	resolve Resolver
	logf    logging.Logf

	mu      sync.Mutex
	docs    map[string]*Doc   // by Abs
	uris    map[string]string // URI to Abs
	total   int               // bytes held
	notHeld map[string]string // Abs to why, until a tool has said so once
	waiters map[*Waiter]struct{}
	disk    map[string]diskSeen // by Abs
}

// NewStore returns an empty store whose positions count in enc. logf gets
// the diagnostics of bad input.
func NewStore(enc Encoding, resolve Resolver, logf logging.Logf) *Store {
	return &Store{enc: enc, resolve: resolve, logf: logf, docs: map[string]*Doc{},
		uris: map[string]string{}, notHeld: map[string]string{}, waiters: map[*Waiter]struct{}{},
		disk: map[string]diskSeen{}}
}

// Encoding returns the position encoding the store counts in.
func (s *Store) Encoding() Encoding { return s.enc }

// LSP params, decoded loosely enough to report what is wrong.
type (
	textDocumentItem struct {
		URI        string `json:"uri"`
		LanguageID string `json:"languageId"`
		Version    int32  `json:"version"`
		Text       string `json:"text"`
	}
	versionedID struct {
		URI     string `json:"uri"`
		Version int32  `json:"version"`
	}
	position struct {
		Line      int `json:"line"`
		Character int `json:"character"`
	}
	changeEvent struct {
		Range *struct {
			Start position `json:"start"`
			End   position `json:"end"`
		} `json:"range"`
		Text string `json:"text"`
	}
)

// Methods are the notifications Handle takes.
var Methods = []string{"textDocument/didOpen", "textDocument/didChange", "textDocument/didClose", "textDocument/didSave"}

// Handle applies one document-sync notification and reports whether method
// is one; bad params are logged.
func (s *Store) Handle(method string, params json.RawMessage) bool {
	var err error
	switch method {
	case "textDocument/didOpen":
		var p struct {
			TextDocument textDocumentItem `json:"textDocument"`
		}
		if err = json.Unmarshal(params, &p); err == nil {
			s.open(p.TextDocument)
		}
	case "textDocument/didChange":
		var p struct {
			TextDocument   versionedID   `json:"textDocument"`
			ContentChanges []changeEvent `json:"contentChanges"`
		}
		if err = json.Unmarshal(params, &p); err == nil {
			s.change(p.TextDocument, p.ContentChanges)
		} else {
			s.dropURI(params, fmt.Sprintf("unreadable didChange: %v", err))
			return true
		}
	case "textDocument/didClose":
		var p struct {
			TextDocument versionedID `json:"textDocument"`
		}
		if err = json.Unmarshal(params, &p); err == nil {
			s.close(p.TextDocument.URI)
		}
	case "textDocument/didSave":
		// The disk is compared with the buffer whenever a tool asks.
	default:
		return false
	}
	if err != nil {
		s.logf("documents: %s: bad params: %v", method, err)
	}
	return true
}

// open holds the document, replacing what was held for its URI.
func (s *Store) open(it textDocumentItem) {
	path, ok := roots.URIPath(it.URI)
	if !ok {
		s.logf("documents: didOpen %s: not a file: URI; not held", it.URI)
		return
	}
	abs, ok := s.resolve(path)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !ok {
		s.logf("documents: didOpen %s: outside the roots; not held", it.URI)
		return
	}
	if old, dup := s.docs[abs]; dup {
		s.logf("documents: didOpen %s: already open (version %d); the new text replaces it", it.URI, old.Version)
		s.removeLocked(abs)
	}
	switch {
	case len(it.Text) > limits.DocumentMaxBytes:
		s.notHeld[abs] = fmt.Sprintf("the editor's document %s is over %d MiB: not held", it.URI, limits.DocumentMaxBytes/limits.MiB)
		return
	case s.total+len(it.Text) > limits.DocumentsMaxBytes || len(s.docs) >= limits.DocumentsMaxOpen:
		s.notHeld[abs] = fmt.Sprintf("the editor's open documents are over %d MiB or %d documents: %s not held",
			limits.DocumentsMaxBytes/limits.MiB, limits.DocumentsMaxOpen, it.URI)
		return
	}
	delete(s.notHeld, abs)
	d := &Doc{URI: it.URI, Abs: abs, LanguageID: it.LanguageID, Version: it.Version, Text: rope.New([]byte(it.Text))}
	s.docs[abs] = d
	s.uris[it.URI] = abs
	s.total += d.Text.Len()
	s.notifyLocked(d)
}

// change applies the changes, in order, to the document; one it cannot
// apply drops the document.
func (s *Store) change(id versionedID, changes []changeEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	abs, ok := s.uris[id.URI]
	if !ok {
		s.logf("documents: didChange %s: not an open document; ignored", id.URI)
		return
	}
	d := s.docs[abs]
	if id.Version <= d.Version {
		s.dropLocked(abs, fmt.Sprintf("version %d after %d goes backwards", id.Version, d.Version))
		return
	}
	t := d.Text
	for i, c := range changes {
		var err error
		if t, err = apply(t, c, s.enc); err != nil {
			s.dropLocked(abs, fmt.Sprintf("contentChanges[%d]: %v", i, err))
			return
		}
		if t.Len() > limits.DocumentMaxBytes {
			s.dropLocked(abs, fmt.Sprintf("the document grew past %d MiB", limits.DocumentMaxBytes/limits.MiB))
			return
		}
		// Every step is a text the editor had: a waiter may be waiting
		// for one of them.
		s.total += t.Len() - d.Text.Len()
		d = &Doc{URI: d.URI, Abs: abs, LanguageID: d.LanguageID, Version: id.Version, Text: t}
		s.docs[abs] = d
		s.notifyLocked(d)
	}
}

// apply returns t with one change applied.
func apply(t rope.Text, c changeEvent, enc Encoding) (rope.Text, error) {
	if c.Range == nil {
		return rope.New([]byte(c.Text)), nil
	}
	start, err := Offset(t, c.Range.Start.Line, c.Range.Start.Character, enc)
	if err != nil {
		return t, err
	}
	end, err := Offset(t, c.Range.End.Line, c.Range.End.Character, enc)
	if err != nil {
		return t, err
	}
	if end < start {
		return t, fmt.Errorf("range end %d:%d is before its start %d:%d", c.Range.End.Line, c.Range.End.Character,
			c.Range.Start.Line, c.Range.Start.Character)
	}
	return t.Replace(start, end, []byte(c.Text)), nil
}

func (s *Store) close(uri string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	abs, ok := s.uris[uri]
	if !ok {
		s.logf("documents: didClose %s: not an open document; ignored", uri)
		return
	}
	s.removeLocked(abs)
	delete(s.notHeld, abs)
}

// dropURI drops the document a didChange named whose params were unreadable.
func (s *Store) dropURI(params json.RawMessage, why string) {
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	_ = json.Unmarshal(params, &p)
	s.mu.Lock()
	defer s.mu.Unlock()
	if abs, ok := s.uris[p.TextDocument.URI]; ok {
		s.dropLocked(abs, why)
		return
	}
	s.logf("documents: %s", why)
}

// dropLocked stops holding a document the store cannot keep in sync.
func (s *Store) dropLocked(abs, why string) {
	d := s.docs[abs]
	s.logf("documents: %s: %s; dropped until the editor opens it again", d.URI, why)
	s.removeLocked(abs)
	s.notHeld[abs] = fmt.Sprintf("the editor's document %s fell out of sync (%s): the tools use the file on disk until it is opened again", d.URI, why)
}

func (s *Store) removeLocked(abs string) {
	d := s.docs[abs]
	delete(s.docs, abs)
	delete(s.uris, d.URI)
	delete(s.disk, abs)
	s.total -= d.Text.Len()
	for w := range s.waiters {
		if w.abs == abs {
			w.closed = true
			w.signal()
		}
	}
}

// Get returns the document held for the file abs, or nil.
func (s *Store) Get(abs string) *Doc {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs[abs]
}

// Open returns every document held, by path.
func (s *Store) Open() []*Doc {
	s.mu.Lock()
	out := make([]*Doc, 0, len(s.docs))
	for _, d := range s.docs {
		out = append(out, d)
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Abs < out[j].Abs })
	return out
}

// Notice returns, once, why the editor's document for abs is not held ("" when
// there is nothing to say).
func (s *Store) Notice(abs string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.notHeld[abs]
	delete(s.notHeld, abs)
	return n
}
