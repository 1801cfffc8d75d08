package shellsession

import (
	"strings"
	"sync"
)

// logLines is the shell's own stdout and stderr (what it prints outside any
// command): each line goes to the log, the last is kept for an error.
type logLines struct {
	logf func(string, ...any)
	mu   sync.Mutex
	tail string
}

// Write logs p line by line.
func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		if line == "" {
			continue
		}
		l.tail = line
		if l.logf != nil {
			l.logf("shell session: %s", line)
		}
	}
	return len(p), nil
}

// last is the last line the shell printed.
func (l *logLines) last() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.tail
}
