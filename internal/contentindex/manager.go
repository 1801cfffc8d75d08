package contentindex

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/toolrpc/toolrpc/internal/logging"
	"github.com/toolrpc/toolrpc/internal/progress"
	"github.com/toolrpc/toolrpc/limits"
)

// Dir returns the index directory of root (absolute, symlink-evaluated)
// under dataDir: <dataDir>/index/<hash of root>.
func Dir(dataDir, root string) string {
	h := sha256.Sum256([]byte(root))
	return filepath.Join(dataDir, "index", hex.EncodeToString(h[:16]))
}

// Options configures a Manager.
type Options struct {
	// DataDir holds the index under index/<hash of Root>.
	DataDir string
	// Root is the absolute, symlink-evaluated workspace root.
	Root string
	// Logf logs (nil: discarded). Lines wait in a queue for the next call.
	Logf logging.Logf
	// CPUPercent is the builder's share of one core (0: limits.IndexBuildCPUPercent;
	// 100: unthrottled).
	CPUPercent int
	// Progress, when set, is shown every build: the listing of the root,
	// then the files indexed of the total (see package progress).
	Progress *progress.Reporter
}

// Manager keeps the content index of one root: it maps an index left by an
// earlier build, builds one in the background when there is none, and keeps
// an overlay of files changed since. Its methods may be called
// concurrently; none waits for a build.
type Manager struct {
	opts Options
	dir  string

	mu      sync.RWMutex
	base    *Index
	overlay map[string]overlayDoc
	ovBytes int
	off     bool // no index for this root this session (logged once)

	building atomic.Bool // a build is asked for or running

	builds atomic.Int32 // builds this manager finished

	// codes caches the codes of the last snapshot listing (see classify).
	codes atomic.Pointer[codeCache]

	// The worker never writes the log itself: its lines wait here for the
	// next call (or Close), so a one-shot CLI call that returns while the
	// worker runs has no late line racing its caller's output.
	log *logging.Queue

	// calls counts the calls running on the root (busy); quiet is
	// signalled when it falls to zero. A build waits for both.
	calls atomic.Int32
	quiet chan struct{}

	requests chan request
	ctx      context.Context
	cancel   context.CancelFunc
	done     chan struct{}
}

// Open returns the manager of a root and starts its worker, which maps an
// existing index at once.
func Open(opts Options) *Manager {
	if opts.CPUPercent == 0 {
		opts.CPUPercent = limits.IndexBuildCPUPercent
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{
		opts: opts, dir: Dir(opts.DataDir, opts.Root), overlay: map[string]overlayDoc{}, log: logging.NewQueue(opts.Logf, ""),
		requests: make(chan request, 256), ctx: ctx, cancel: cancel, done: make(chan struct{}), quiet: make(chan struct{}, 1),
	}
	go m.work()
	return m
}

// Close stops the worker (a build in progress stays resumable) and unmaps
// the index.
func (m *Manager) Close() {
	m.cancel()
	<-m.done
	m.log.Flush()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.base != nil {
		m.base.Close()
		m.base = nil
	}
}

// busy marks a call as running until the returned function is called
// (once).
func (m *Manager) busy() func() {
	m.calls.Add(1)
	var once sync.Once
	return func() {
		once.Do(func() {
			if m.calls.Add(-1) == 0 {
				select {
				case m.quiet <- struct{}{}:
				default:
				}
			}
		})
	}
}

// waitQuiet waits until no call is running; false when the manager closes
// first.
func (m *Manager) waitQuiet() bool {
	for m.calls.Load() > 0 {
		select {
		case <-m.quiet:
		case <-m.ctx.Done():
			return false
		}
	}
	return true
}

// Builds returns the number of indexes this manager built (not mapped from
// an earlier or another server's build).
func (m *Manager) Builds() int { return int(m.builds.Load()) }

// Ready reports whether an index is mapped.
func (m *Manager) Ready() bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.base != nil
}

func (m *Manager) isOff() bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.off
}

// turnOff gives up the index for this session and logs why, once.
func (m *Manager) turnOff(err error) {
	m.mu.Lock()
	was := m.off
	m.off = true
	m.mu.Unlock()
	if !was {
		m.log.Printf("contentindex %s: no content index this session, grep reads every file: %v", m.opts.Root, err)
	}
}
