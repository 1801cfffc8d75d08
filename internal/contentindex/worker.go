package contentindex

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"time"

	"github.com/toolrpc/toolrpc/internal/progress"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/walk"
)

// request asks the worker to build (because there was no index, or
// because it is stale), to read one changed file (rel), or (done) to report
// that it served every earlier request.
type request struct {
	build buildWhy
	rel   string
	done  chan struct{} // tests: closed when every earlier request is served
	warm  walk.Files    // a listing whose codes to cache (Set.Warm)
}

// ask queues a request for the worker, dropping it when the queue is full.
func (m *Manager) ask(r request) {
	select {
	case m.requests <- r:
	default:
	}
}

// settle waits until the worker has served every request queued so far.
func (m *Manager) settle() {
	done := make(chan struct{})
	select {
	case m.requests <- request{done: done}:
		<-done
	case <-m.done:
	}
	m.log.Flush()
}

// buildWhy says why a build is asked for.
type buildWhy int

const (
	noBuild    buildWhy = iota
	buildNone           // no index was mapped
	buildStale          // too many files changed since the build
)

// askBuild asks for a build of the whole root unless one is asked for or
// running.
func (m *Manager) askBuild(why buildWhy) {
	if !m.building.CompareAndSwap(false, true) {
		return
	}
	select {
	case m.requests <- request{build: why}:
	default:
		m.building.Store(false)
	}
}

// listRoot returns the sorted root-relative paths of the files a grep of
// the whole root would search (one walk worker), counting them on meter.
func (m *Manager) listRoot(meter *progress.Meter) ([]string, error) {
	opts := walk.Options{Start: m.opts.Root, Boundary: m.opts.Root, Workers: 1}
	if meter != nil {
		opts.Found = func(walk.File) { meter.Add(1) }
	}
	files, err := walk.Walk(m.ctx, opts)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(files))
	for _, f := range files {
		out = append(out, f.Rel)
	}
	slices.Sort(out)
	return out, nil
}

// work is the one worker: it runs at low priority, maps an existing index,
// and serves build and overlay requests until Close.
func (m *Manager) work() {
	defer close(m.done)
	// An index an earlier build left is mapped at the server's priority: a
	// grep is waiting to narrow with it. Building is what runs lowered.
	if ix, err := openIndex(filepath.Join(m.dir, indexName), m.opts.Root); err == nil {
		m.swap(ix)
	}
	lowerPriority()
	pace := newPacer(m.opts.CPUPercent)
	var set *triSet // for changed files, made at the first (18 MB of address space)
	var buf []byte
	for {
		select {
		case <-m.ctx.Done():
			return
		case r := <-m.requests:
			if r.done != nil {
				close(r.done)
			} else if r.warm != nil {
				m.warm(r.warm)
			} else if r.build != noBuild {
				if !m.waitQuiet() {
					return
				}
				if r.build == buildStale || !m.Ready() {
					m.build(&pace) // not when the index was mapped since it was asked for
				}
				m.building.Store(false)
			} else {
				if set == nil {
					set, buf = newTriSet(), make([]byte, 256*limits.KB)
				}
				m.readChanged(r.rel, set, buf)
				pace.tick()
			}
		}
	}
}

// build builds the index of the root under the directory's lock and maps
// it.
func (m *Manager) build(pace *pacer) {
	if m.isOff() {
		return
	}
	if err := os.MkdirAll(m.dir, 0o700); err != nil {
		m.turnOff(err)
		return
	}
	unlock, err := m.lock()
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			m.turnOff(err)
		}
		return
	}
	defer unlock()
	// Another server may have built it while this one waited for the lock.
	if ix, err := openIndex(filepath.Join(m.dir, indexName), m.opts.Root); err == nil && m.newer(ix) {
		m.swap(ix)
		return
	}
	meter := m.opts.Progress.Start(progress.IndexBuild, m.opts.Root)
	defer meter.End()
	paths, err := m.listRoot(meter)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			m.turnOff(err)
		}
		return
	}
	meter.SetTotal(len(paths))
	pace.meter = meter
	defer func() { pace.meter = nil }()
	_, err = build(m.ctx, m.opts.Root, m.dir, paths, pace)
	switch {
	case errors.Is(err, context.Canceled):
		return
	case err != nil:
		m.turnOff(err)
		return
	}
	ix, err := openIndex(filepath.Join(m.dir, indexName), m.opts.Root)
	if err != nil {
		m.turnOff(err)
		return
	}
	m.swap(ix)
	// The builder's buffers are garbage now: give the pages back, so a
	// serving process keeps only the mapped index.
	debug.FreeOSMemory()
	m.builds.Add(1)
}

var lockPoll = 500 * time.Millisecond // tests shorten it

// newer reports whether ix is another file than the mapped base.
func (m *Manager) newer(ix *Index) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.base == nil || m.base.ino != ix.ino
}

// swap makes ix the base and clears the overlay.
func (m *Manager) swap(ix *Index) {
	m.mu.Lock()
	old := m.base
	m.base = ix
	m.overlay, m.ovBytes = map[string]overlayDoc{}, 0
	m.mu.Unlock()
	if old != nil {
		old.Close()
	}
}
