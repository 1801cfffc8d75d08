package contentindex

import (
	"errors"
	"runtime"
	"time"
)

// errNoIndex turns the content index off on Windows: the index is mapped
// and locked with Unix calls, and without a file table there is no change
// feed to keep it warm cheaply; grep reads every candidate file instead,
// which SPEC §12 allows (an index never changes an answer).
var errNoIndex = errors.New("content index: not built on Windows")

func openIndex(path, root string) (*Index, error) { return nil, errNoIndex }

// Close does nothing: no index is ever opened on Windows.
func (ix *Index) Close() {}

func (m *Manager) lock() (unlock func(), err error) { return nil, errNoIndex }

// scanFile never marks a file indexed on Windows.
func scanFile(abs string, set *triSet, buf []byte, now time.Time, cut func(set *triSet, next int64)) (size, mtime int64, flags uint32) {
	set.Reset()
	return 0, 0, 0
}

func threadCPU() time.Duration { return 0 }

func lowerPriority() { runtime.LockOSThread() }
