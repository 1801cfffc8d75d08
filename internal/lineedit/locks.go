package lineedit

import "sync"

// Locks serialises the edits and writes of one file: one holder per path
// at a time. The zero value is ready to use.
type Locks struct {
	mu sync.Mutex
	m  map[string]*fileLock
}

type fileLock struct {
	mu   sync.Mutex
	refs int
}

// Lock locks path and returns its unlock function.
func (l *Locks) Lock(path string) (unlock func()) {
	l.mu.Lock()
	if l.m == nil {
		l.m = map[string]*fileLock{}
	}
	e := l.m[path]
	if e == nil {
		e = &fileLock{}
		l.m[path] = e
	}
	e.refs++
	l.mu.Unlock()
	e.mu.Lock()
	return func() {
		e.mu.Unlock()
		l.mu.Lock()
		if e.refs--; e.refs == 0 {
			delete(l.m, path)
		}
		l.mu.Unlock()
	}
}
