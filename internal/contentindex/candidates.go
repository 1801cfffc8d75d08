package contentindex

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/walk"
)

// subset is the files of a listing at ascending indexes, with the parts of
// each one that can hold a match (see MatchSpans).
type subset struct {
	src   walk.Files
	idx   []int
	spans [][][2]int64 // per file of idx, or nil when every file is read whole
}

// MatchSpans returns the byte ranges of file i that can hold a line with a
// match (Index.MatchSpans) when the index holds the file as it is (so it
// is text grep matches undecoded), else nil: grep's count and
// filesWithMatches modes read only those ranges, and need not sniff the
// file (search.MatchSpans).
func (s *subset) MatchSpans(i int) [][2]int64 {
	if s.spans == nil {
		return nil
	}
	return s.spans[i]
}

// keep adds file i of the listing, whose lines with a match lie in spans
// (nil: anywhere).
func (s *subset) keep(i int, spans [][2]int64) {
	if spans != nil && s.spans == nil {
		s.spans = make([][][2]int64, len(s.idx), cap(s.idx))
	}
	s.idx = append(s.idx, i)
	if s.spans != nil {
		s.spans = append(s.spans, spans)
	}
}

func (s *subset) Len() int           { return len(s.idx) }
func (s *subset) At(i int) walk.File { return s.src.At(s.idx[i]) }

func (s *subset) AppendAbs(dst []byte, i int) []byte { return s.src.AppendAbs(dst, s.idx[i]) }

func (s *subset) Identity(i int) (size, mtime int64) { return s.src.Identity(s.idx[i]) }

func (s *subset) SnapshotKey() any { return nil }

// Candidates returns the files of files (in their order) that may hold a
// match of a pattern whose query is q, and ok=true; or files itself and
// ok=false when the index cannot narrow the search (not built yet, off, or
// q matches everything). A file the index does not hold as it is now (new,
// changed, too large, binary by content but read too near a change) is
// always kept; a file grep skips (SPEC §4: binary by its name, or by the
// content the index read of it as it still is) is never kept. Candidates never waits for
// the index; the first call starts a build of the root.
func (m *Manager) Candidates(q *Query, files walk.Files) (walk.Files, bool) {
	m.log.Flush()
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
	set, blocks, all, err := m.base.Match(q)
	if err != nil || all {
		return files, false
	}
	out := &subset{src: files}
	stale := 0
	codes, fill := m.cachedCodes(files)
	if codes == nil {
		codes = m.classifyAll(files)
		if fill != nil {
			fill.codes = codes
		}
	}
	var buf []byte
	for i := range files.Len() {
		c := codes[i]
		var abs string
		var size, mtime int64
		if c == codeSlow {
			buf = files.AppendAbs(buf[:0], i)
			abs = unsafe.String(unsafe.SliceData(buf), len(buf)) // not kept past this turn
			size, mtime = files.Identity(i)
		}
		switch {
		case c >= 0:
			if has(set, uint32(c)) {
				out.keep(i, m.base.MatchSpans(uint32(c), blocks))
			}
		case c == codeKeep:
			out.keep(i, nil)
		case c == codeSlow:
			rel, _ := strings.CutPrefix(abs, m.opts.Root+"/")
			if o, ok := m.overlay[rel]; ok && o.size == size && o.mtime == mtime {
				if q.Eval(o.has) {
					out.keep(i, nil)
				}
				continue
			}
			out.keep(i, nil) // not known as it is now: read it, and index it
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
				if d.BinarySettled {
					return codeDrop // binary by content as it is: grep skips it (SPEC §4)
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

// classifyBatch is limits.IndexClassifyBatchFiles; tests shorten it.
var classifyBatch = limits.IndexClassifyBatchFiles

// classifyAll returns the code of every file of files, classifying
// batches of classifyBatch files on every core (the listings
// grep narrows are read only, so their methods may run concurrently); m.mu
// is read-locked.
func (m *Manager) classifyAll(files walk.Files) []int32 {
	n := files.Len()
	codes := make([]int32, n)
	batch := classifyBatch
	classify := func(lo, hi int) {
		var buf []byte
		for i := lo; i < hi; i++ {
			buf = files.AppendAbs(buf[:0], i)
			size, mtime := files.Identity(i)
			codes[i] = m.classify(unsafe.String(unsafe.SliceData(buf), len(buf)), size, mtime)
		}
	}
	if n <= batch {
		classify(0, n)
		return codes
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.NumCPU(), (n+batch-1)/batch) {
		wg.Go(func() {
			for lo := int(next.Add(int64(batch))) - batch; lo < n; lo = int(next.Add(int64(batch))) - batch {
				classify(lo, min(lo+batch, n))
			}
		})
	}
	wg.Wait()
	return codes
}

// codeCache holds the codes of one snapshot listing against one base.
type codeCache struct {
	key   any
	base  *Index
	codes []int32
}

// cachedCodes returns the cached codes of files, or, when files is a
// snapshot whose codes are not cached, a cache whose codes to set; m.mu is
// read-locked.
func (m *Manager) cachedCodes(files walk.Files) (codes []int32, fill *codeCache) {
	key := files.SnapshotKey()
	if key == nil {
		return nil, nil
	}
	if c := m.codes.Load(); c != nil && c.base == m.base && c.key == key && len(c.codes) == files.Len() {
		return c.codes, nil
	}
	return nil, &codeCache{key: key, base: m.base}
}

// warm caches the codes of files (a snapshot listing) against the mapped
// index, classified on the calling thread; run by the worker, the only
// goroutine that replaces m.base, so the base cannot change under it.
func (m *Manager) warm(files walk.Files) {
	m.mu.RLock()
	base := m.base
	m.mu.RUnlock()
	if base == nil {
		return
	}
	codes, fill := m.cachedCodes(files)
	if codes != nil || fill == nil {
		return // cached already
	}
	codes = make([]int32, files.Len())
	var buf []byte
	for i := range codes {
		buf = files.AppendAbs(buf[:0], i)
		size, mtime := files.Identity(i)
		codes[i] = m.classify(unsafe.String(unsafe.SliceData(buf), len(buf)), size, mtime)
	}
	fill.codes = codes
	m.codes.Store(fill)
}
