package contentindex

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/walk"
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
	// Logf logs (nil: the standard logger).
	Logf func(format string, args ...any)
	// CPUPercent is the builder's share of one core (0: limits.IndexBuildCPUPercent;
	// 100: unthrottled).
	CPUPercent int
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
	logMu sync.Mutex
	logq  []string

	requests chan request
	ctx      context.Context
	cancel   context.CancelFunc
	done     chan struct{}
}

// overlayDoc is a file read since the base index was built.
type overlayDoc struct {
	size, mtime int64
	tris        []uint32 // sorted
	masks       []uint8  // follower masks of tris
}

// has reports whether the document holds term t.
func (o *overlayDoc) has(t uint32) bool {
	i, ok := slices.BinarySearch(o.tris, t&triMask)
	return ok && termAllows(t, o.masks[i])
}

// request asks the worker to build (because there was no index, or
// because it is stale), to read one changed file (rel), or (done) to report
// that it served every earlier request.
type request struct {
	build buildWhy
	rel   string
	done  chan struct{} // tests: closed when every earlier request is served
}

// Open returns the manager of a root and starts its worker, which maps an
// existing index at once.
func Open(opts Options) *Manager {
	if opts.Logf == nil {
		opts.Logf = log.Printf
	}
	if opts.CPUPercent == 0 {
		opts.CPUPercent = limits.IndexBuildCPUPercent
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{
		opts: opts, dir: Dir(opts.DataDir, opts.Root), overlay: map[string]overlayDoc{},
		requests: make(chan request, 256), ctx: ctx, cancel: cancel, done: make(chan struct{}),
	}
	go m.work()
	return m
}

// Close stops the worker (a build in progress stays resumable) and unmaps
// the index.
func (m *Manager) Close() {
	m.cancel()
	<-m.done
	m.flushLog()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.base != nil {
		m.base.Close()
		m.base = nil
	}
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

// AbsAppender is a listing that can write a file's absolute path and report
// its size and mtime without building a walk.File; Candidates uses it when
// the listing has it, so the files it drops are never built.
type AbsAppender interface {
	AppendAbs(dst []byte, i int) []byte
	Identity(i int) (size, mtime int64)
}

// subset is the files of a listing at ascending indexes.
type subset struct {
	src walk.Files
	idx []int
}

func (s *subset) Len() int           { return len(s.idx) }
func (s *subset) At(i int) walk.File { return s.src.At(s.idx[i]) }

// Candidates returns the files of files (in their order) that may hold a
// match of a pattern whose query is q, and ok=true; or files itself and
// ok=false when the index cannot narrow the search (not built yet, off, or
// q matches everything). A file the index does not hold as it is now (new,
// changed, binary by content, too large) is always kept; a file grep skips
// by its name (SPEC §4 extensions) is never kept. Candidates never waits for
// the index; the first call starts a build of the root.
func (m *Manager) Candidates(q *Query, files walk.Files) (walk.Files, bool) {
	m.flushLog()
	if q.Op == OpAll {
		return files, false
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.off {
		return files, false
	}
	if m.base == nil {
		m.askBuild(buildNone)
		return files, false
	}
	set, all, err := m.base.Match(q)
	if err != nil || all {
		return files, false
	}
	out := &subset{src: files}
	stale := 0
	codes, fill := m.cachedCodes(files)
	fast, _ := files.(AbsAppender)
	var buf []byte
	for i := range files.Len() {
		c := codeSlow
		if codes != nil {
			c = codes[i]
		}
		var abs string
		var size, mtime int64
		if codes == nil || c == codeSlow {
			if fast != nil {
				buf = fast.AppendAbs(buf[:0], i)
				abs = unsafe.String(unsafe.SliceData(buf), len(buf)) // not kept past this turn
				size, mtime = fast.Identity(i)
			} else {
				f := files.At(i)
				abs, size, mtime = f.Abs, f.Size, f.ModTime
			}
			if codes == nil {
				c = m.classify(abs, size, mtime)
			}
			if fill != nil {
				fill.codes[i] = c
			}
		}
		switch {
		case c >= 0:
			if has(set, uint32(c)) {
				out.idx = append(out.idx, i)
			}
		case c == codeKeep:
			out.idx = append(out.idx, i)
		case c == codeSlow:
			rel, _ := strings.CutPrefix(abs, m.opts.Root+"/")
			if o, ok := m.overlay[rel]; ok && o.size == size && o.mtime == mtime {
				if q.Eval(o.has) {
					out.idx = append(out.idx, i)
				}
				continue
			}
			out.idx = append(out.idx, i) // not known as it is now: read it, and index it
			stale++
			m.ask(request{rel: strings.Clone(rel)})
		}
	}
	if fill != nil {
		m.codes.Store(fill)
	}
	if stale > limits.IndexOverlayMaxFiles {
		m.askBuild(buildStale)
	}
	return out, true
}

// What the base index says of a listed file, whatever the query: a
// document id (≥ 0: held as it is, and indexed) or one of these.
const (
	codeSlow int32 = -1 - iota // not held as it is: the overlay knows, or nobody
	codeDrop                   // grep skips it by its name (SPEC §4 extensions)
	codeKeep                   // always read: held as it is but never indexed, or outside the root
)

// classify returns the code of the file abs of the given identity; m.mu is
// read-locked.
func (m *Manager) classify(abs string, size, mtime int64) int32 {
	rel, under := strings.CutPrefix(abs, m.opts.Root+"/")
	held := false // held as it is, but not indexed
	if under {
		if id, ok := m.base.docs[rel]; ok {
			d := m.base.doc(id)
			if d.Size == size && d.MTime == mtime {
				if d.Indexed {
					return int32(id) // a file binary by name is never indexed
				}
				held = d.Binary || d.Decoded || d.Size > limits.IndexMaxFileBytes
			}
		}
	}
	switch {
	case walk.IsBinaryName(abs):
		return codeDrop
	case !under || held:
		return codeKeep
	}
	return codeSlow // changed, new, or racy or unreadable when built: the overlay reads it
}

// Snapshotter is a listing whose files are an immutable snapshot: two
// listings with equal keys (==) list the same files, paths, sizes and
// mtimes in the same order. The file table's listings are.
type Snapshotter interface {
	SnapshotKey() any
}

// codeCache holds the codes of one snapshot listing against one base.
type codeCache struct {
	key   any
	base  *Index
	codes []int32
}

// cachedCodes returns the cached codes of files, or, when files is a
// snapshot whose codes are not cached, a cache to fill; m.mu is
// read-locked.
func (m *Manager) cachedCodes(files walk.Files) (codes []int32, fill *codeCache) {
	sn, ok := files.(Snapshotter)
	if !ok {
		return nil, nil
	}
	key := sn.SnapshotKey()
	if key == nil {
		return nil, nil
	}
	if c := m.codes.Load(); c != nil && c.base == m.base && c.key == key && len(c.codes) == files.Len() {
		return c.codes, nil
	}
	return nil, &codeCache{key: key, base: m.base, codes: make([]int32, files.Len())}
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
	m.flushLog()
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
// the whole root would search (one walk worker).
func (m *Manager) listRoot() ([]string, error) {
	files, err := walk.Walk(m.ctx, walk.Options{Start: m.opts.Root, Boundary: m.opts.Root, Workers: 1})
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
	lowerPriority()
	pace := newPacer(m.opts.CPUPercent)
	if ix, err := openIndex(filepath.Join(m.dir, indexName), m.opts.Root); err == nil {
		m.swap(ix)
	}
	var set *triSet // for changed files, made at the first (18 MB of address space)
	var buf []byte
	for {
		select {
		case <-m.ctx.Done():
			return
		case r := <-m.requests:
			if r.done != nil {
				close(r.done)
			} else if r.build != noBuild {
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
	lock, err := m.lock()
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			m.turnOff(err)
		}
		return
	}
	defer unix.Close(lock)
	// Another server may have built it while this one waited for the lock.
	if ix, err := openIndex(filepath.Join(m.dir, indexName), m.opts.Root); err == nil && m.newer(ix) {
		m.swap(ix)
		return
	}
	paths, err := m.listRoot()
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			m.turnOff(err)
		}
		return
	}
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

// lock takes the directory's build lock, polling while another process
// holds it; it returns the locked descriptor.
func (m *Manager) lock() (int, error) {
	fd, err := unix.Open(filepath.Join(m.dir, lockName), unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return -1, &os.PathError{Op: "open", Path: filepath.Join(m.dir, lockName), Err: err}
	}
	for {
		err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return fd, nil
		}
		if err != unix.EWOULDBLOCK && err != unix.EINTR {
			unix.Close(fd)
			return -1, fmt.Errorf("flock %s: %w", m.dir, err)
		}
		select {
		case <-m.ctx.Done():
			unix.Close(fd)
			return -1, m.ctx.Err()
		case <-time.After(lockPoll):
		}
	}
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

// readChanged reads one changed file into the overlay.
func (m *Manager) readChanged(rel string, set *triSet, buf []byte) {
	m.mu.RLock()
	o, known := m.overlay[rel]
	full := len(m.overlay) >= limits.IndexOverlayMaxFiles || m.ovBytes >= limits.IndexOverlayMaxBytes
	m.mu.RUnlock()
	if full {
		return
	}
	size, mtime, flags := scanFile(m.opts.Root+"/"+rel, set, buf, time.Now())
	if flags&docIndexed == 0 || (known && o.size == size && o.mtime == mtime) {
		return
	}
	tris := slices.Clone(set.Sorted())
	masks := make([]uint8, len(tris))
	for i, t := range tris {
		masks[i] = set.Mask(t)
	}
	m.mu.Lock()
	m.overlay[rel] = overlayDoc{size: size, mtime: mtime, tris: tris, masks: masks}
	m.ovBytes += 5 * len(tris)
	m.mu.Unlock()
}

func (m *Manager) isOff() bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.off
}

// logf queues a log line for the next call.
func (m *Manager) logf(format string, args ...any) {
	m.logMu.Lock()
	defer m.logMu.Unlock()
	m.logq = append(m.logq, fmt.Sprintf(format, args...))
}

// flushLog writes the queued log lines.
func (m *Manager) flushLog() {
	m.logMu.Lock()
	q := m.logq
	m.logq = nil
	m.logMu.Unlock()
	for _, l := range q {
		m.opts.Logf("%s", l)
	}
}

// turnOff gives up the index for this session and logs why, once.
func (m *Manager) turnOff(err error) {
	m.mu.Lock()
	was := m.off
	m.off = true
	m.mu.Unlock()
	if !was {
		m.logf("contentindex %s: no content index this session, grep reads every file: %v", m.opts.Root, err)
	}
}
