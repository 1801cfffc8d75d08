package contentindex

import (
	"regexp/syntax"
	"sync"

	"github.com/toolrpc/toolrpc/walk"
)

// Set holds a session's content indexes, one Manager per root, each opened
// by the first grep of its root. Its methods may be called concurrently.
type Set struct {
	opts Options // DataDir, Logf and CPUPercent for every root

	mu     sync.Mutex
	byRoot map[string]*Manager
	closed bool
}

// NewSet returns an empty set whose managers use opts (Root is ignored).
func NewSet(opts Options) *Set { return &Set{opts: opts, byRoot: map[string]*Manager{}} }

// Manager returns root's manager, opening it on first use, or nil once the
// set is closed.
func (s *Set) Manager(root string) *Manager {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	m := s.byRoot[root]
	if m == nil {
		o := s.opts
		o.Root = root
		m = Open(o)
		s.byRoot[root] = m
	}
	return m
}

// Busy opens root's manager (which maps an index an earlier build left,
// in the background, so a grep can start the mapping before it lists the
// files it will narrow) and marks a call on root as
// running until the returned function is called: a build the call asks
// for starts only once no call is running, so the first grep of a root
// spends its time on its own answer (a build's walk and reads would share
// the cores with it). A nil Set does nothing.
func (s *Set) Busy(root string) (done func()) {
	if s == nil {
		return func() {}
	}
	m := s.Manager(root)
	if m == nil {
		return func() {}
	}
	return m.busy()
}

// Narrow returns the files of files (in order) that may hold a match of
// the grep pattern (flags as search.Compile takes them), using root's
// index: files itself when the index cannot help yet. It never waits for an
// index. root is the absolute, symlink-evaluated root holding the files.
func (s *Set) Narrow(root string, re *syntax.Regexp, size int, files walk.Files) walk.Files {
	if s == nil || files.Len() == 0 {
		return files
	}
	q := Plan(re, size)
	if q.Op == OpAll {
		return files
	}
	m := s.Manager(root)
	if m == nil {
		return files
	}
	out, _ := m.Candidates(q, files)
	return out
}

// Narrows reports whether Narrow would consult root's index for the grep
// pattern now: the pattern plans to a lookup and an index is mapped. It
// opens no manager. A nil Set never narrows.
func (s *Set) Narrows(root string, re *syntax.Regexp, size int) bool {
	if s == nil || Plan(re, size).Op == OpAll {
		return false
	}
	s.mu.Lock()
	m := s.byRoot[root]
	s.mu.Unlock()
	return m != nil && m.Ready()
}

// Close stops every manager (builds stay resumable) and unmaps the indexes.
func (s *Set) Close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	ms := s.byRoot
	s.byRoot, s.closed = nil, true
	s.mu.Unlock()
	for _, m := range ms {
		m.Close()
	}
}

// Warm opens root's manager (which maps an index an earlier build left)
// and has its worker, at its idle priority, classify files (a snapshot
// listing of the whole root, see walk.Files.SnapshotKey) against the
// mapped index and cache the result, so the first grep that lists the
// same snapshot narrows without classifying. It never waits; a grep that
// comes first classifies for itself. A nil Set does nothing.
func (s *Set) Warm(root string, files walk.Files) {
	if s == nil || files == nil || files.SnapshotKey() == nil {
		return
	}
	if m := s.Manager(root); m != nil {
		m.ask(request{warm: files})
	}
}
