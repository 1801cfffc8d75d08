package filetable

import (
	"context"
	"os"
	"sync"

	"github.com/toolrpc/toolrpc/internal/progress"
	"github.com/toolrpc/toolrpc/walk"
)

// Prewarm starts loading root's stored table in the background, when an
// earlier server left one and the table is not built yet: the file is
// read and decoded on a thread of idle priority, then every directory is
// watched and stamped again (the load of the package doc) on one idle
// thread per core, and the table goes live with its newest-first order
// made. The load shows its progress like a build (progress.TableLoad),
// Close ends it at once, and then, once the table is live, receives the
// whole root's listing (a warm snapshot; nil never). It reports whether a
// load was started; a root with nothing stored starts nothing.
//
// A listing that comes meanwhile never waits for an idle thread: it
// finishes the revalidation on its own threads (the idle ones give their
// directories back) and then waits for the rest of the load as it waits
// for a build. One that comes before the file is decoded loads the table
// itself, as it would without Prewarm.
func (s *Set) Prewarm(root string, then func(walk.Files)) bool {
	if s == nil || !hasWatcher || !s.roots[root] || s.store == nil {
		return false
	}
	if _, err := os.Lstat(s.store(root)); err != nil {
		return false
	}
	t := s.table(root)
	if t == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.building.Go(func() {
		if t.prewarm(s.bg) && then != nil {
			if files, ok, _ := t.List(s.bg, Query{Start: root}); ok {
				then(files)
			}
		}
	})
	return true
}

// prewarm loads the stored table for Prewarm and reports whether it did
// (false also when a listing loaded it first).
func (t *Table) prewarm(ctx context.Context) bool {
	read := make(chan bool, 1)
	go func() {
		t.idleRead.start(idleThread()) // never unlocked: the thread ends with the goroutine
		s := t.readStore(&t.readYield)
		if s != nil {
			t.decoded.Store(s)
		}
		t.idleRead.end() // after decoded is set: a call that waits takes it
		read <- s != nil
	}()
	select {
	case ok := <-read:
		if !ok {
			return false
		}
	case <-ctx.Done():
		t.readYield.Store(true) // the read stops at its next directory
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.state != stateNew {
		// A listing came first and loaded the table: its call may still
		// be answering, and what is left (the watches of a lazy load) is
		// started once it has answered (BuildDeferred), not here.
		t.decoded.Store(nil)
		return false
	}
	if t.building || t.deferred || t.lazyLoad || t.decoded.Load() == nil {
		return false // a listing came first: it loads the table itself
	}
	t.idleLoad = true
	t.loadMeter = t.reporter.Start(progress.TableLoad, t.root)
	err := t.build(ctx, listener{})
	t.loadMeter.End()
	t.idleLoad, t.loadMeter = false, nil
	if err != nil || t.state != stateLive {
		t.decoded.Store(nil)
		return false
	}
	if t.unwatched {
		// A call finished the load: it answers from the table as from a
		// lazy load, then its BuildDeferred adds the watches it left.
		return false
	}
	t.sortedOrder() // the first listing's order, made now
	t.scheduleSave()
	return true
}

// raiseThread is unidleThread; tests stand in for the kernel's answer.
var raiseThread = unidleThread

// idleReader is the idle thread that reads and decodes the stored table
// for Prewarm, while it does.
type idleReader struct {
	mu     sync.Mutex
	tid    int           // the thread (0: none reads now)
	done   chan struct{} // closed when that read ends
	raised bool          // a call loads the table: the thread runs at its priority
}

// start records that thread tid (an idleThread) reads now; it raises the
// thread at once when a call came first.
func (r *idleReader) start(tid int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tid, r.done = tid, make(chan struct{})
	if r.raised {
		raiseThread(tid)
	}
}

// end records that the read is over; the thread is never raised after.
func (r *idleReader) end() {
	r.mu.Lock()
	r.tid = 0
	if r.done != nil {
		close(r.done)
	}
	r.mu.Unlock()
}

// raise gives the reading thread the server's priority (where the kernel
// allows, see unidleThread), for a call that loads the table. When the
// kernel allowed it for a read under way, raise waits for that read to end
// and reports true: the read goes on as fast as the call's own would, and
// the call takes what it decoded (Table.decoded) instead of reading the
// file again. Otherwise it reports false, and the call, which reads the
// file itself, must tell the idle read to stop (readYield): until the
// thread sees that, it holds one of the runtime's processors, which the
// call's goroutines and every stop-the-world (a garbage collection's)
// wait for.
func (r *idleReader) raise() bool {
	r.mu.Lock()
	r.raised = true
	if r.tid == 0 || !raiseThread(r.tid) {
		r.mu.Unlock()
		return false
	}
	done := r.done
	r.mu.Unlock()
	<-done
	return true
}

// lockForCall takes t.mu for a listing: a revalidation on idle threads
// that holds it, or starts while the listing waits for it, is finished on
// the listing's threads and the server's priority (see hurry).
func (t *Table) lockForCall() {
	t.waiting.Add(1)
	t.hurry()
	t.mu.Lock()
	t.waiting.Add(-1)
}

// hurry finishes, on the caller's threads, a revalidation running on
// idle threads (Prewarm), so the caller, which then waits for the table,
// never waits for an idle thread to be given a core.
func (t *Table) hurry() {
	if p := t.loading.Load(); p != nil {
		p.help()
	}
}
