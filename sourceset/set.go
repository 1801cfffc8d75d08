package sourceset

import "sync"

// Set is the edit source set of a session (SPEC §8): for each (path, tag), the
// line ranges shown whole. It is safe for concurrent use.
type Set struct {
	mu    sync.Mutex
	files map[key][][2]int
}

type key struct{ path, tag string }

// New returns an empty Set.
func New() *Set { return &Set{files: map[key][][2]int{}} }

// Add records that lines from..to (1-based, inclusive) of the file at the
// absolute path abs, in the version whose tag is tag, were shown whole.
func (s *Set) Add(abs, tag string, from, to int) {
	if from > to {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := key{abs, tag}
	s.files[k] = append(s.files[k], [2]int{from, to})
}

// Has reports whether line n of (abs, tag) is in the set.
func (s *Set) Has(abs, tag string, n int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.files[key{abs, tag}] {
		if r[0] <= n && n <= r[1] {
			return true
		}
	}
	return false
}
