package process

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/toolrpc/toolrpc/internal/beneath"
	"github.com/toolrpc/toolrpc/limits"
)

// logKeep and logSlack size the log file; tests shrink them.
var (
	logKeep  int64 = limits.ProcessLogKeepBytes
	logSlack int64 = limits.ProcessLogSlackBytes
)

// Log is a process's rendered log (SPEC §13.3): an append-only stream whose
// offsets count every byte since the start, kept in a file that holds at
// least its last logKeep bytes. Once the file grows logSlack past that, its
// head is dropped by copying the kept tail to a new file renamed over it, so
// the file always holds whole, ordered text a reader can Grep or Read.
//
// A Log is safe for concurrent use. A failed write is remembered (Err) and
// the bytes are still counted as produced, so accounting never lies.
type Log struct {
	mu       sync.Mutex
	path     string
	f        *os.File
	base     int64 // stream offset of the file's first byte
	produced int64
	err      error

	newlines int64      // "\n" bytes ever appended
	marks    []lineMark // newline counts at offsets about markEvery apart
	nextMark int64
}

// lineMark is the number of newlines before offset off.
type lineMark struct{ off, lines int64 }

// markEvery is the spacing of the line marks that let Lines count a range
// by reading at most about that much of the file.
const markEvery = 256 * limits.KB

// CreateLog creates (or replaces) the log file at path, mode 0600 in a 0700
// directory. path's directory is in the session scratch, which commands may
// write (SPEC §14): it is made and opened relative to its parent's
// descriptor following no symlink, and the file is made afresh there
// (whatever a command left at its name is removed, never followed), so the
// server writes nowhere but inside the scratch dir.
func CreateLog(path string) (*Log, error) {
	dir, err := openLogDir(path)
	if err != nil {
		return nil, fmt.Errorf("process log: %w", err)
	}
	defer dir.Close()
	f, err := createIn(dir, filepath.Base(path))
	if err != nil {
		return nil, fmt.Errorf("process log: %w", err)
	}
	return &Log{path: path, f: f}, nil
}

// openLogDir makes (as needed) and opens the directory of the log file
// path: its parent is the server's (followed as named), the directory
// itself is reached through no symlink.
func openLogDir(path string) (*beneath.Dir, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return nil, err
	}
	top, err := beneath.OpenDir(filepath.Dir(dir))
	if err != nil {
		return nil, err
	}
	defer top.Close()
	return top.Sub(filepath.Base(dir), 0o700)
}

// createIn makes the file name in dir afresh (O_EXCL, after removing what
// is there) for reading and writing.
func createIn(dir *beneath.Dir, name string) (*os.File, error) {
	if err := dir.Remove(name); err != nil {
		return nil, err
	}
	return dir.Create(name, os.O_RDWR, 0o600)
}

// Path returns the log file's path.
func (l *Log) Path() string { return l.path }

// Append adds b to the stream.
func (l *Log) Append(b []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.produced += int64(len(b))
	l.newlines += int64(bytes.Count(b, []byte{'\n'}))
	if l.produced >= l.nextMark {
		l.marks = append(l.marks, lineMark{l.produced, l.newlines})
		l.nextMark = l.produced + markEvery
	}
	if l.err != nil || l.f == nil {
		return
	}
	if _, err := l.f.WriteAt(b, l.produced-int64(len(b))-l.base); err != nil {
		l.err = fmt.Errorf("process log %s: %w", l.path, err)
		return
	}
	if l.produced-l.base > logKeep+logSlack {
		l.dropHead()
	}
}

// dropHead keeps the last logKeep bytes of the file: the kept tail goes to
// a new file renamed over the log, both names in the log's directory
// reached through no symlink (see CreateLog).
func (l *Log) dropHead() {
	keepFrom := l.produced - logKeep
	name := filepath.Base(l.path)
	tmp := name + ".tmp"
	dir, err := openLogDir(l.path)
	var nf *os.File
	if err == nil {
		defer dir.Close()
		nf, err = createIn(dir, tmp)
	}
	if err == nil {
		_, err = io.Copy(nf, io.NewSectionReader(l.f, keepFrom-l.base, logKeep))
	}
	if err == nil {
		err = dir.Rename(tmp, name)
	}
	if err != nil {
		if nf != nil {
			_ = nf.Close()
		}
		if dir != nil {
			_ = dir.Remove(tmp)
		}
		l.err = fmt.Errorf("process log %s: drop head: %w", l.path, err)
		return
	}
	_ = l.f.Close()
	l.f, l.base = nf, keepFrom
}

// Produced returns the stream's length: every byte ever appended.
func (l *Log) Produced() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.produced
}

// Held returns the offset of the oldest byte the file still holds.
func (l *Log) Held() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.base
}

// ReadRange returns the bytes of [from, to), from raised to Held; it returns
// where the returned bytes start.
func (l *Log) ReadRange(from, to int64) ([]byte, int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	from = max(from, l.base)
	to = min(to, l.produced)
	if from >= to {
		return nil, from, l.err
	}
	if l.err != nil {
		return nil, from, l.err
	}
	b := make([]byte, to-from)
	n, err := l.f.ReadAt(b, from-l.base)
	if err != nil && err != io.EOF {
		return b[:n], from, fmt.Errorf("process log %s: %w", l.path, err)
	}
	return b[:n], from, nil
}

// Err returns the first write error, or nil.
func (l *Log) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Close closes the file; the stream's offsets stay readable as counts.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	if l.err == nil {
		l.err = os.ErrClosed
	}
	return err
}

// Lines returns the number of lines of [from, to) (from at least Held): its
// newlines, plus one for a last line without "\n".
func (l *Log) Lines(from, to int64) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	from = max(from, l.base)
	to = min(to, l.produced)
	if from >= to || l.f == nil {
		return 0
	}
	n := l.newlinesAt(to) - l.newlinesAt(from)
	var last [1]byte
	if _, err := l.f.ReadAt(last[:], to-1-l.base); err == nil && last[0] != '\n' {
		n++
	}
	return int(n)
}

// newlinesAt returns the newlines before offset x (Held <= x <= Produced),
// counted from the nearest mark the file still holds.
func (l *Log) newlinesAt(x int64) int64 {
	if x == l.produced {
		return l.newlines
	}
	i := sort.Search(len(l.marks), func(i int) bool { return l.marks[i].off > x }) - 1
	if i >= 0 && l.marks[i].off >= l.base {
		return l.marks[i].lines + l.countRange(l.marks[i].off, x)
	}
	next := lineMark{l.produced, l.newlines}
	if i+1 < len(l.marks) {
		next = l.marks[i+1]
	}
	return next.lines - l.countRange(x, next.off)
}

// countRange counts the newlines of the file's [from, to).
func (l *Log) countRange(from, to int64) int64 {
	var n int64
	buf := make([]byte, 64*limits.KB)
	for from < to {
		k, err := l.f.ReadAt(buf[:min(int64(len(buf)), to-from)], from-l.base)
		n += int64(bytes.Count(buf[:k], []byte{'\n'}))
		from += int64(k)
		if err != nil {
			break
		}
	}
	return n
}
