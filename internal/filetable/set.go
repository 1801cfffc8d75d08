package filetable

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/toolrpc/toolrpc/internal/logging"
	"github.com/toolrpc/toolrpc/internal/progress"
	"github.com/toolrpc/toolrpc/walk"
)

// Set holds the tables of one session, one per root, each built by the first
// listing of its root.
type Set struct {
	logf  logging.Logf
	roots map[string]bool          // the roots Walk keeps tables for
	store func(root string) string // where root's table persists (nil: nowhere)

	reporter *progress.Reporter // shows whole-root walks (ReportTo)

	deferBuilds bool               // DeferBuilds was called
	bg          context.Context    // the deferred builds' context, cancelled by Close
	stopBG      context.CancelFunc // cancels bg
	building    sync.WaitGroup     // the deferred builds' goroutines (Add under mu)

	mu     sync.Mutex
	tables map[string]*Table
	closed bool
}

// NewSet returns an empty set whose Walk keeps tables for roots (absolute,
// symlink-evaluated) and that logs with logf (nil: discarded).
func NewSet(roots []string, logf logging.Logf) *Set {
	return NewStoredSet(roots, nil, logf)
}

// NewStoredSet is NewSet whose tables persist: root's table is written to
// the file store(root) after it is built or changed (limits.FileTableSaveDelay
// later, never during a listing) and when the set is closed, and a table
// that finds that file at its first listing reads it and revalidates it
// against the file system instead of walking the root (see the package
// doc). A nil store persists nothing.
func NewStoredSet(roots []string, store func(root string) string, logf logging.Logf) *Set {
	s := &Set{logf: logf, roots: map[string]bool{}, tables: map[string]*Table{}, store: store}
	s.bg, s.stopBG = context.WithCancel(context.Background())
	for _, r := range roots {
		s.roots[r] = true
	}
	return s
}

// ReportTo makes every walk of a whole root that fills one of the set's
// tables (the first listing's, or after an overflow) show its progress
// through r (see package progress). Call it before the first listing.
func (s *Set) ReportTo(r *progress.Reporter) { s.reporter = r }

// DeferBuilds makes a listing that would build its root's table by
// walking the whole root (the table is new and no stored table can spare
// the walk) walk as walk.Walk does instead, and leave the build to
// BuildDeferred: the first call on a fresh tree then does only what a
// plain walk does (no watches, no tree filled, no mount checks), and the
// table is built after it has answered. A root with a stored table loads
// it at its first listing without watching its directories, and the
// watches are added after that call has answered (see the package doc).
// Call it before the first listing.
func (s *Set) DeferBuilds() { s.deferBuilds = true }

// Walk returns what walk.Walk(ctx, opts) returns: from the table of
// opts.Boundary when that is one of the set's roots and the table can
// answer, else by walking (also for a nil Set). opts.Keep must not retain
// its arguments; opts.Workers is ignored when the table answers.
func (s *Set) Walk(ctx context.Context, opts walk.Options) (walk.Files, error) {
	if s != nil && s.roots[opts.Boundary] {
		came := time.Now() // before deferBuild, which may finish a load (lockForCall)
		if s.deferBuilds {
			if t := s.table(opts.Boundary); t != nil && t.deferBuild() {
				return s.walkDeferred(ctx, opts)
			}
		}
		files, ok, err := s.list(ctx, opts.Boundary, Query{Start: opts.Start, Keep: opts.Keep, Dir: opts.Dir, Found: opts.Found, Open: opts.Open, Excluded: opts.Excluded}, came)
		if err != nil || ok {
			return files, err
		}
	}
	files, err := walk.Walk(ctx, opts)
	return walk.FileList(files), err
}

// walkDeferred is the walk of a listing whose table's build waits for
// BuildDeferred: walk.Walk, shown to the client as the table's walk would
// be when it lists the whole root.
func (s *Set) walkDeferred(ctx context.Context, opts walk.Options) (walk.Files, error) {
	if opts.Start == opts.Boundary {
		meter := s.reporter.Start(progress.TableWalk, opts.Boundary)
		defer meter.End()
		if meter != nil { // counted as the table's walk counts what it finds
			l := listener{fn: opts.Open, opens: opts.Open != nil}
			if found := opts.Found; !l.opens && found != nil {
				l.fn = func(f walk.File, _ int) { found(f) }
			}
			opts.Open, opts.Found = nil, nil
			counted(l, meter).options(&opts)
		}
	}
	files, err := walk.Walk(ctx, opts)
	return walk.FileList(files), err
}

// BuildDeferred starts, on a goroutine of its own, the build of root's
// table, or the watches of its lazily loaded directories, when a listing
// left them for later (DeferBuilds); it does nothing otherwise. A call
// runs it once its reply is written, so the build never delays an
// answer; a listing that comes while it runs waits for it, as it would
// wait for any build. The build shows no progress (the walk of
// the listing that deferred it did), and Close cancels it.
func (s *Set) BuildDeferred(root string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	t := s.tables[root]
	s.mu.Unlock()
	if t == nil || !t.claimDeferred() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed { // else Close has waited for the builds already
		s.building.Go(func() { t.buildDeferred(s.bg) })
	}
}

// List answers q from root's table, building it first if need be; see
// Table.List. root is absolute and symlink-evaluated.
func (s *Set) List(ctx context.Context, root string, q Query) (walk.Files, bool, error) {
	return s.list(ctx, root, q, time.Now())
}

// list is List of a call that came at came.
func (s *Set) list(ctx context.Context, root string, q Query, came time.Time) (walk.Files, bool, error) {
	t := s.table(root)
	if t == nil {
		return nil, false, nil
	}
	files, ok, err := t.listAt(ctx, q, came)
	if !ok && t.Stats().State == "gone" {
		s.mu.Lock()
		if s.tables[root] == t {
			delete(s.tables, root)
		}
		s.mu.Unlock()
	}
	return files, ok, err
}

// Table returns root's table (creating it unbuilt), or nil once the set is
// closed.
func (s *Set) table(root string) *Table {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	t := s.tables[root]
	if t == nil {
		t = newTable(root, s.logf)
		t.reporter = s.reporter
		if s.store != nil {
			t.store = s.store(root)
		}
		s.tables[root] = t
	}
	return t
}

// Stats returns the figures of root's table, false when it has none.
func (s *Set) Stats(root string) (Stats, bool) {
	s.mu.Lock()
	t := s.tables[root]
	s.mu.Unlock()
	if t == nil {
		return Stats{}, false
	}
	return t.Stats(), true
}

// Close drops every table; later listings return ok=false. A nil Set's
// Close does nothing.
func (s *Set) Close() {
	if s == nil {
		return
	}
	s.stopBG()
	s.mu.Lock()
	ts := s.tables
	s.tables, s.closed = nil, true
	s.mu.Unlock()
	for _, t := range ts {
		t.Close()
	}
	s.building.Wait() // no build's goroutine outlives the set
}

// errNoWatcher is newWatcher's error where the platform has no reliable
// watcher (watcher_other.go): there is never a table there, and that is not
// worth a log line.
var errNoWatcher = errors.New("no reliable file watcher on this platform (or in toolrpc_portable builds)")
