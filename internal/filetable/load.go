package filetable

import (
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolrpc/toolrpc/internal/progress"
	"github.com/toolrpc/toolrpc/limits"
)

// load makes the tree from the table an earlier server persisted, then
// watches and revalidates each of its directories, leaving in t.pend what
// the next apply must list or walk again; t.mu held. It returns false when
// there is no usable persisted table (the caller walks the root), or when
// the table was turned off.
//
// Each directory's watch is added before that directory is stamped, and it
// is compared with its stamps at the save: a change made before the watch
// shows in a stamp, a change made after it is an event. A lazy load
// (t.lazyLoad) adds no watch: the table answers from these stamps, and
// watchLoaded, before anything else uses it, adds the watches and stamps
// every directory again.
//
// ctx ends the load (it returns false, the table still new); a load
// started at initialize (t.idleLoad) revalidates on idle threads.
func (t *Table) load(ctx context.Context) bool {
	if !t.idleLoad && !t.idleRead.raise() {
		// This call reads the file itself unless the idle read is done
		// (decoded): that read stops at its next directory, so it holds
		// neither a core nor the runtime's processor the call needs.
		// (Where the read could be raised to the call's priority, the call
		// waited for it instead and takes what it decoded.)
		t.readYield.Store(true)
	}
	s := t.readStore(nil)
	if s == nil {
		return false
	}
	t.stampedAt = time.Now() // before any stamp, the outside's too
	if err := t.watchOutside(); err != nil {
		t.turnOff(err.Error())
		return false
	}
	outside, ok := outsidePrint(t.root)
	if !ok || !sameStamps(s.outside, outside, s.saved) {
		return false
	}
	t.outside, t.outsideOK = outside, true
	for _, r := range s.rules {
		t.intern(r)
	}
	lazy := t.lazyLoad
	verdicts, changed, helped, err := revalidate(ctx, t, s, devOf(t.root), !lazy, t.idleLoad, t.loadMeter)
	if err != nil {
		t.forget(s)
		if ctx.Err() == nil {
			t.turnOff(err.Error())
		}
		return false
	}
	if !helped.IsZero() {
		// A call finished the load, the directories it judged unwatched
		// (lazy), each stamped after it came: it answers from them, and
		// its BuildDeferred adds their watches, judging them against
		// stamps taken since helped.
		lazy, t.stampedAt = true, helped
	}
	t.unwatched = lazy
	t.deferred = t.deferred || lazy
	t.top = s.dirs[0]
	t.orderOK = false
	t.stats.Loads++
	t.revalidated += changed
	if t.settle(s, verdicts, lazy) && changed == 0 {
		t.savedGen = t.gen() // the file still describes the tree: no need to write it again
	}
	return true
}

// settle takes in what revalidate found of s's directories (each marked
// lazy or not): their watches join byWD, and what each verdict asks for
// goes to t.pend. It reports whether every verdict was printSame; t.mu
// held, t.top set.
func (t *Table) settle(s *stored, verdicts []printVerdict, lazy bool) (same bool) {
	same = true
	for i, d := range s.dirs {
		d.lazy = lazy && d.wd < 0
		if d.wd >= 0 {
			t.byWD[d.wd] = d
		}
		t.markVerdict(d, verdicts[i])
		same = same && verdicts[i] == printSame
	}
	return same
}

// forget drops the watches load added for s's directories; t.mu held.
func (t *Table) forget(s *stored) {
	for _, d := range s.dirs {
		if d.wd >= 0 {
			t.w.rm(d.wd)
		}
	}
	t.rules = nil
}

// markVerdict records in t.pend what directory d's verdict asks for; t.mu
// held. The top never goes: a root that is no longer a directory makes
// the next apply walk it, which finds it gone.
func (t *Table) markVerdict(d *dirNode, v printVerdict) {
	switch {
	case v == printRelist:
		t.markRelist(d)
	case v == printSubtree, v == printGone && d.parent == nil:
		t.markSubtree(d)
	case v == printGone:
		t.markRelist(d.parent)
	}
}

// sameStamps reports whether the stamps saved at saved still hold.
func sameStamps(old, cur []pathStamp, saved int64) bool {
	if len(old) != len(cur) {
		return false
	}
	for i := range old {
		if old[i].path != cur[i].path || !old[i].st.sameAs(cur[i].st, saved) {
			return false
		}
	}
	return true
}

// watchLoaded adds the watches a lazy load left out, each before its
// directory is stamped again, and judges the directory against the stamps
// the load took (at t.stampedAt), as load judges a stored table against
// its save: a changed listing or rule is listed or walked again by the
// next apply, a changed file is updated. What changed between the load's
// stamps and the watch shows in a stamp, what changes after it is an
// event. A watch limit turns the table off; t.mu held.
func (t *Table) watchLoaded() {
	t.unwatched = false
	s := &stored{saved: t.stampedAt.UnixNano()}
	t.top.each(func(d *dirNode) {
		if d.lazy {
			s.dirs = append(s.dirs, d)
			s.prints = append(s.prints, d.print)
		}
	})
	verdicts, changed, _, err := revalidate(context.Background(), t, s, devOf(t.root), true, false, nil)
	if err != nil {
		t.turnOff(err.Error()) // release, once it is off, closes the watcher and its watches
		return
	}
	t.settle(s, verdicts, false)
	t.revalidated += changed
	if changed > 0 {
		t.orderOK = false
	}
}

// revalidate watches (unless watch is false) and stamps every directory
// of s again, in parallel, and returns each one's verdict. The files of a
// directory whose listing stands are stat'ed: a changed size or time
// updates the entry (changed counts them), a file that is no longer a
// regular file lists the directory again. err is the first error of a
// watch (a limit, an unreliable file system): the table cannot be had;
// or ctx's error when ctx ended first. t.mu is held, so no event reader
// runs: the workers own the directories they are given, and the watches
// of nested git dirs are added under t.specialMu.
//
// With idle (a load started at initialize, see Set.Prewarm) the workers
// run on threads of idle priority (idleThread), and the work is
// published in t.loading, so a call that comes meanwhile finishes it on
// its own threads (loadPool.help) instead of waiting for idle ones; meter
// counts the directories judged. A call's helpers judge the directories
// left without their watches (the table's first call leaves them to its
// BuildDeferred, as a lazy load does): helped is when the first call
// began to help (zero: none did).
func revalidate(ctx context.Context, t *Table, s *stored, rootDev uint64, watch, idle bool, meter *progress.Meter) (verdicts []printVerdict, changed int, helped time.Time, err error) {
	p := &loadPool{t: t, s: s, rootDev: rootDev, watch: watch, onIdle: idle, meter: meter,
		verdicts: make([]printVerdict, len(s.dirs)), finished: make(chan struct{}), aborted: make(chan struct{})}
	if len(s.dirs) == 0 {
		close(p.finished)
	}
	meter.SetTotal(len(s.dirs))
	if idle {
		t.loading.Store(p)
		defer t.loading.Store(nil)
		if t.waiting.Load() > 0 { // a listing waits for t.mu: it cannot help
			go p.help()
		}
	}
	for range runtime.NumCPU() {
		if idle {
			p.idle.Add(1)
			go func() {
				defer p.idle.Done()
				tid := idleThread()
				p.mu.Lock()
				p.tids = append(p.tids, tid)
				p.mu.Unlock()
				p.work(true)
			}()
		} else {
			p.helpers.Go(func() { p.work(false) })
		}
	}
	select {
	case <-p.finished:
	case <-p.aborted:
	case <-ctx.Done():
		p.fail(ctx.Err())
	}
	if p.failed.Load() {
		// The workers may hold directories: each gives its back at its
		// next file (or ends it), and nothing may touch the tree after
		// this returns.
		p.stop.Store(true)
		p.mu.Lock()
		p.ended = true // no call's help starts now
		p.mu.Unlock()
		p.helpers.Wait()
		p.idle.Wait()
	}
	p.mu.Lock()
	helped = p.helped
	p.mu.Unlock()
	return p.verdicts, int(p.nchanged.Load()), helped, p.err
}

// loadPool is one revalidation's directories and the workers judging
// them: each takes the next directory in turn; an idle worker gives a
// directory back (redo) when told to stop, and a call's helper judges it
// again from its start.
type loadPool struct {
	t       *Table
	s       *stored
	rootDev uint64
	watch   bool
	onIdle  bool // the workers run on idle threads (a load at initialize)
	meter   *progress.Meter

	verdicts []printVerdict
	next     atomic.Int64  // the next directory no worker took yet
	done     atomic.Int64  // directories judged
	nchanged atomic.Int64  // file entries updated
	finished chan struct{} // closed when every directory is judged
	aborted  chan struct{} // closed when the revalidation fails
	stop     atomic.Bool   // idle workers give their directories back and end
	failed   atomic.Bool
	errOnce  sync.Once
	err      error

	mu     sync.Mutex
	redo   []int     // directories idle workers gave back
	ended  bool      // the revalidation failed: help starts no worker
	tids   []int     // the idle workers' threads
	helped time.Time // when a call began to help (zero: none did)

	idle    sync.WaitGroup // idle workers
	helpers sync.WaitGroup // workers of the server's priority
}

// work judges directories until none is left; an idle worker (idle)
// stops early when p.stop is set, giving back the directory it holds.
func (p *loadPool) work(idle bool) {
	for !p.failed.Load() && !(idle && p.stop.Load()) {
		i := int(p.next.Add(1) - 1)
		if i >= len(p.s.dirs) {
			return
		}
		p.judge(i, idle)
	}
}

// judge judges directory i.
func (p *loadPool) judge(i int, idle bool) {
	var stop *atomic.Bool
	if idle {
		stop = &p.stop
	}
	// A call's helper (not idle, on an idle pool) leaves the watch to
	// the call's BuildDeferred.
	watch := p.watch && (idle || !p.onIdle)
	v, n, err := revalidateDir(p.t, p.s, i, p.rootDev, watch, stop)
	p.nchanged.Add(int64(n))
	switch {
	case err == errGaveBack:
		p.mu.Lock()
		p.redo = append(p.redo, i)
		p.mu.Unlock()
	case err != nil:
		p.fail(err)
	default:
		p.verdicts[i] = v
		p.meter.Add(1)
		if p.done.Add(1) == int64(len(p.s.dirs)) {
			close(p.finished)
		}
	}
}

// fail ends the revalidation with err (the first one counts).
func (p *loadPool) fail(err error) {
	p.errOnce.Do(func() {
		p.err = err
		p.failed.Store(true)
		close(p.aborted)
	})
}

// help finishes the revalidation on the caller's threads: the idle
// workers stop at their next file, the caller's goroutines take every
// directory left, then judge again those the idle workers gave back. It
// returns when every directory is judged (or the revalidation failed).
// A call runs it before it waits for the table, so it never waits for a
// thread of idle priority to be given a core.
func (p *loadPool) help() {
	p.stop.Store(true)
	p.mu.Lock()
	if p.ended {
		p.mu.Unlock()
		return
	}
	for _, tid := range p.tids {
		// A thread that holds a directory gives it back sooner at the
		// server's priority; only a privileged server may raise it.
		unidleThread(tid)
	}
	if p.helped.IsZero() {
		p.helped = time.Now() // before any stamp the helpers take
	}
	n := runtime.NumCPU()
	p.helpers.Add(n + 1) // the workers, and this goroutine's redo below
	p.mu.Unlock()
	defer p.helpers.Done()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			defer p.helpers.Done()
			p.work(false)
		})
	}
	wg.Wait()
	for {
		p.mu.Lock()
		redo := p.redo
		p.redo = nil
		p.mu.Unlock()
		for _, i := range redo {
			if !p.failed.Load() {
				p.judge(i, false)
			}
		}
		select {
		case <-p.finished:
			return
		default:
		}
		if p.failed.Load() {
			return
		}
		// An idle worker still holds a directory: it gives it back at its
		// next file (or finishes it), as soon as it is given a core.
		time.Sleep(50 * time.Microsecond)
	}
}

// idleFileHook, when set (tests), runs on an idle worker before each file
// it stats (stop is the worker's stop flag): it stands for a thread that
// is not given a core.
var idleFileHook func(stop *atomic.Bool)

// errGaveBack is revalidateDir's error when an idle worker was told to
// stop: the directory is to be judged again from its start.
var errGaveBack = errors.New("directory given back")

// revalidateDir watches directory i of s (unless watch is false), judges
// it against its stamps and, when its listing stands, lstats its files: a
// changed size or time updates the entry (n counts them), a file that is
// no longer a regular file lists the directory again. rootDev is the
// root's device. When stop is set (checked before each file) it returns
// errGaveBack: judging the directory again from its start gives the same
// verdict (the watch is the same, a file updated is updated again).
func revalidateDir(t *Table, s *stored, i int, rootDev uint64, watch bool, stop *atomic.Bool) (v printVerdict, n int, err error) {
	d := s.dirs[i]
	sortNodes(d.dirs)
	d.dirs = slices.Clip(d.dirs)
	abs := t.abs(d.path)
	ds, cur, ok, err := t.watchStored(d, abs, rootDev, s.prints[i], s.saved, watch)
	if err != nil {
		return 0, 0, err
	}
	if ok {
		defer ds.close()
	}
	d.print = cur // taken after the watch: what a directory relisted now replaces
	if v = s.prints[i].compare(cur, s.saved); v != printSame {
		return v, 0, nil
	}
	for k := range d.files {
		if stop != nil && idleFileHook != nil {
			idleFileHook(stop)
		}
		if stop != nil && stop.Load() {
			return 0, n, errGaveBack
		}
		f := &d.files[k]
		st := ds.stamp(f.name)
		if !st.isRegular() {
			return printRelist, n, nil
		}
		if st.size != f.size || st.mtime != f.mtime {
			f.size, f.mtime = st.size, st.mtime
			n++
		}
	}
	return printSame, n, nil
}

// watchStored does for the stored directory d (at abs) what watchDir does
// for a listed one (without any watch, its own or its git dir's, when
// watch is false), then stamps it through a descriptor it returns open
// (ok false, and cur the zero print, when abs is no longer a directory).
// The stamps that decide the watch's kind serve the print too, and only a
// directory on another device than the root (rootDev) has its file system
// asked again whether its events can be trusted.
//
// A directory whose own stamp is still the one saved (old, at saved) had no
// entry created, removed or renamed since (each changes its time), so a
// .git or ignore file absent then is absent now: it is not stamped.
func (t *Table) watchStored(d *dirNode, abs string, rootDev uint64, old dirPrint, saved int64, watch bool) (ds dirStamper, cur dirPrint, ok bool, err error) {
	d.wd, d.repo = -1, false
	if watch {
		wd, err := t.w.add(abs, dirMask)
		if err != nil && errors.Is(err, errWatchLimit) {
			return ds, cur, false, err
		}
		if err == nil {
			d.wd = wd
		}
	}
	if ds, ok = openStamper(abs); !ok {
		return ds, cur, false, nil
	}
	self, dev := ds.stampDev("")
	if self.isDir() && dev != rootDev {
		if fs := ds.unreliable(); fs != "" {
			ds.close()
			return ds, cur, false, &errUnreliable{dir: abs, fs: fs}
		}
	}
	same := old.self.sameAs(self, saved)
	var git stamp
	if !same || old.git.mode != 0 {
		git = ds.stamp(".git")
	}
	d.repo = git.mode != 0
	if d.repo && d.path != "" && watch {
		t.watchGitDir(abs, d.path)
	}
	absent := [2]bool{same && old.rules[0].mode == 0, same && old.rules[1].mode == 0}
	return ds, printDirWith(abs, ds, self, git, absent), true, nil
}

// readStore returns the table persisted for t.root, or nil when there is
// none or it cannot be used (a line says why, unless there is none), or
// when stop (nil: never) was set while it decoded.
func (t *Table) readStore(stop *atomic.Bool) *stored {
	if s := t.decoded.Swap(nil); s != nil {
		return s // a load started at initialize read it (Set.Prewarm)
	}
	if t.store == "" || (stop != nil && stop.Load()) {
		return nil
	}
	f, err := os.Open(t.store)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			t.note("persisted file table not read, walking the root: %v", err)
		}
		return nil
	}
	defer f.Close()
	var s *stored
	data, err := readAllOnce(f)
	if err == nil {
		s, err = decodeStore(data, t.root, stop) // the table shares data
	}
	if err == errStopped {
		return nil
	}
	if err != nil {
		t.note("persisted file table %s ignored, walking the root: %v", t.store, err)
		return nil
	}
	return s
}

// readAllOnce reads the whole store file f into a buffer of its size, so
// no larger buffer is left as garbage (the decoded table shares it).
func readAllOnce(f *os.File) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > limits.FileTableMaxStoreBytes {
		return nil, errors.New("larger than limits.FileTableMaxStoreBytes")
	}
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, err
	}
	return data, nil
}
