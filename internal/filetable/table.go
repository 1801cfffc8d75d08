package filetable

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolrpc/toolrpc/internal/gitignore"
	"github.com/toolrpc/toolrpc/internal/logging"
	"github.com/toolrpc/toolrpc/internal/progress"
	"github.com/toolrpc/toolrpc/walk"
)

// tableState is where a Table is in its life.
type tableState int

const (
	stateNew    tableState = iota // not built yet
	stateLive                     // built and watched
	stateOff                      // no table for this root (limit, file system); callers walk
	stateGone                     // the root was deleted or renamed
	stateClosed                   // closed with its Set
)

var stateNames = map[tableState]string{stateNew: "new", stateLive: "live", stateOff: "off", stateGone: "gone", stateClosed: "closed"}

// Stats describes a table for logs and benchmarks.
type Stats struct {
	// State is "new", "live", "off", "gone" or "closed".
	State string
	// Files and Dirs count what the table holds; Watches the inotify
	// watches of its directories.
	Files, Dirs, Watches int
	// Builds counts walks of the whole root (the first one, overflows,
	// changed ignore files at or above the root); Rewalks the scoped walks
	// that applied events.
	Builds, Rewalks int
	// Events counts inotify events read; Overflows queue overflows.
	Events, Overflows int
	// Loads counts tables read from the store an earlier server wrote
	// (then revalidated) instead of walking the root.
	Loads int
}

// Table is the resident file table of one root. Its methods may be called
// concurrently.
type Table struct {
	root string
	log  *logging.Queue // lines waiting for the next listing

	mu          sync.Mutex
	state       tableState
	w           *watcher
	top         *dirNode
	byWD        map[int32]*dirNode
	special     map[int32][]specialWatch // by watch: each role it has
	specialMu   sync.Mutex               // serialises writes to special by load's workers (t.mu covers the rest)
	rootIgnored bool                     // the root lies in a directory its repository ignores
	pend        pending
	rules       map[ruleKey]*gitignore.Rule // interned rules of the exclusions
	order       []entry                     // every file, newest first (valid when orderOK; never modified)
	orderOK     bool
	stats       Stats
	readerDone  chan struct{}
	closeOnce   sync.Once

	// deferred: a listing walked without the table, leaving its build to
	// BuildDeferred (Set.DeferBuilds), or loaded a stored table without
	// its watches (unwatched), leaving them to BuildDeferred; building:
	// BuildDeferred claimed the build, so listings wait for it; quiet:
	// that build runs, and shows no progress (the listing's walk showed
	// it).
	deferred, building, quiet bool
	// lazyLoad: a stored table is to be loaded without watches
	// (Set.DeferBuilds): its directories are stamped, the listing
	// answers, and watchLoaded adds the watches after (unwatched until
	// then). stampedAt is when that load began stamping: a call that came
	// before it may be answered unwatched (every change made before the
	// call shows in those stamps).
	lazyLoad, unwatched bool
	stampedAt           time.Time

	// idleLoad: the load runs for Set.Prewarm, on idle threads, counted
	// on loadMeter; loading is its revalidation while it runs (a listing
	// finishes it, see loadPool.help); decoded is the stored table its
	// idle thread read and decoded, taken by the next load; waiting
	// counts listings waiting for t.mu (lockForCall).
	idleLoad  bool
	loadMeter *progress.Meter
	loading   atomic.Pointer[loadPool]
	decoded   atomic.Pointer[stored]
	waiting   atomic.Int32
	readYield atomic.Bool // a listing loads the table: the idle read stops
	idleRead  idleReader  // the idle read's thread, which that listing raises

	// outside is what outsidePrint said right after the watches outside
	// the tree were added (outsideOK false: the table is not persisted);
	// a save writes it as it is.
	outside   []pathStamp
	outsideOK bool
	// unguarded names a directory above the root that could not be
	// watched ("": none), so a root replaced there is not heard of: each
	// listing then checks the root's identity itself.
	unguarded string

	store       string      // the file the table persists to ("": none)
	saveMu      sync.Mutex  // serialises saves
	saveTimer   *time.Timer // the pending save, or nil
	savedGen    int         // gen() of the last save
	revalidated int         // file entries a load updated

	reporter *progress.Reporter // shows whole-root walks to the client (nil: nobody)

	// mounts, during a whole walk (mountsKnown), are the mount points
	// below the root: only they and the root can lie on a file system
	// whose events are not reliable (else every directory is asked).
	mounts      map[string]bool
	mountsKnown bool
}

// pending holds what events asked for and the next listing will apply.
type pending struct {
	rebuild bool
	relist  map[*dirNode]bool
	subtree map[*dirNode]bool
	restat  map[*dirNode]map[string]bool
}

func (p *pending) empty() bool {
	return !p.rebuild && len(p.relist) == 0 && len(p.subtree) == 0 && len(p.restat) == 0
}

// newTable returns the unbuilt table of root (absolute, symlink-evaluated).
func newTable(root string, logf logging.Logf) *Table {
	return &Table{root: root, log: logging.NewQueue(logf, "filetable "+root+": ")}
}

// Query is one listing.
type Query struct {
	// Start is the absolute, symlink-evaluated directory to list.
	Start string
	// Keep, when set, is asked about each file (its path relative to Start
	// and its base name) as walk.Options.Keep is; it must not retain its
	// arguments.
	Keep func(rel, name string) bool
	// Dir, when set, prunes subdirectories as walk.Options.Dir does (asked
	// with paths relative to Start).
	Dir func(rel string) bool
	// Excluded, when set, receives what the ignore rules excluded, as
	// walk.Options.Excluded does in a walk of Start.
	Excluded *walk.Excluded
	// Found, when set, receives files of the listing while the call walks
	// (it does when it builds the table), as walk.Options.Found does, so
	// work can overlap the walk. It may be called from several goroutines,
	// and it may receive files the answer then leaves out (when ok is
	// false); the answer is authoritative.
	Found func(walk.File)
	// Open, when set, is Found for a caller that reads each file, as
	// walk.Options.Open is: fd is open on the file (closed when Open
	// returns) when the walk that fills the table could open it for the
	// query, else -1. Found is not called when Open is set.
	Open func(f walk.File, fd int)
}

// List returns what walk.Walk(ctx, walk.Options{Start: q.Start, Boundary:
// root, Keep: q.Keep, Dir: q.Dir}) returns at the moment of the call, newest
// first; each File is built when it is read. ok is
// false when the table cannot answer (no table for this root, start is not a
// directory the table holds, or start's walk would judge ignore rules
// differently from the root's): the caller walks instead. err is ctx's
// error when the call was cancelled while the table was built or brought up
// to date.
func (t *Table) List(ctx context.Context, q Query) (files walk.Files, ok bool, err error) {
	return t.listAt(ctx, q, time.Now())
}

// listAt is List of a call that came at came.
func (t *Table) listAt(ctx context.Context, q Query, came time.Time) (files walk.Files, ok bool, err error) {
	t.lockForCall()
	err = t.ready(ctx, listenerOf(t.root, q), came)
	t.log.Flush()
	t.scheduleSave()
	live := t.state == stateLive
	var n *dirNode
	if err == nil && live {
		n = t.startNode(q.Start)
		if n != nil {
			l := t.collect(n, q.Start, q.Keep, q.Dir)
			l.version = version{t: t, gen: t.gen()}
			files = l
			if q.Excluded != nil {
				t.replayExcluded(n, q)
			}
		}
	}
	t.mu.Unlock()
	if !live {
		t.release()
	}
	if err != nil || n == nil {
		return nil, false, err
	}
	return files, true, nil
}

// Stats returns the table's figures.
func (t *Table) Stats() Stats {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := t.stats
	st.State = stateNames[t.state]
	st.Files, st.Dirs, st.Watches = 0, 0, 0
	if t.top != nil {
		t.top.each(func(d *dirNode) {
			st.Dirs++
			st.Files += len(d.files)
			if d.wd >= 0 {
				st.Watches++
			}
		})
	}
	return st
}

// Close persists the table when it has a store and changed since its last
// save (unless changes wait to be applied: it walks nothing), then drops
// it and its watches. It may be called more than once.
func (t *Table) Close() {
	t.mu.Lock()
	if t.saveTimer != nil {
		t.saveTimer.Stop()
		t.saveTimer = nil
	}
	t.mu.Unlock()
	// The last save and the state change are one step under saveMu: a save
	// whose timer fired just before Stop either ends before it or finds the
	// table closed, so nothing is written after Close returns.
	t.saveMu.Lock()
	t.saveLocked(false)
	t.mu.Lock()
	if t.state != stateOff && t.state != stateGone {
		t.state = stateClosed
	}
	t.mu.Unlock()
	t.saveMu.Unlock()
	t.release()
}

// release stops the event reader, closes the watcher and frees the tree;
// the state says why.
func (t *Table) release() {
	t.mu.Lock()
	final := t.state != stateNew && t.state != stateLive
	t.mu.Unlock()
	if !final {
		return
	}
	t.closeOnce.Do(func() {
		t.mu.Lock()
		w, done := t.w, t.readerDone
		t.mu.Unlock()
		if w == nil {
			return
		}
		w.stop()
		if done != nil {
			<-done
		}
		t.mu.Lock()
		w.close()
		t.w, t.top, t.byWD, t.special, t.pend = nil, nil, nil, nil, pending{}
		t.order, t.orderOK = nil, false
		t.mu.Unlock()
	})
}

// ready builds the table or brings it up to date for a call that came at
// came; t.mu held. A lazily loaded table is watched first, unless every
// stamp it holds was taken after came (a call that waited for the load
// that answered another).
func (t *Table) ready(ctx context.Context, found listener, came time.Time) error {
	switch t.state {
	case stateNew:
		return t.build(ctx, found)
	case stateLive:
		if t.unwatched && !came.Before(t.stampedAt) {
			t.watchLoaded()
			if t.state != stateLive {
				return nil
			}
		}
		if err := t.w.drain(t.record); err != nil {
			t.turnOff(err.Error())
			return nil
		}
		t.checkRoot()
		return t.apply(ctx)
	}
	return nil
}

// deferBuild reports whether a listing should walk without the table and
// leave its build to BuildDeferred: the platform keeps tables, the table is
// new, no deferred build is under way, and no stored table (which is
// revalidated, not walked) can spare the whole walk. It marks the build as
// deferred; when a stored table can, it marks that table's watches as
// deferred instead (lazyLoad) and returns false.
func (t *Table) deferBuild() bool {
	t.lockForCall()
	defer t.mu.Unlock()
	if !hasWatcher || t.state != stateNew || t.building {
		return false // no table to build, or a build to wait for
	}
	if t.store != "" {
		if _, err := os.Lstat(t.store); err == nil {
			t.lazyLoad = true
			return false
		}
	}
	t.deferred = true
	return true
}

// claimDeferred reports whether a build or a loaded table's watches were
// deferred and claims them: until they are done, listings wait instead of
// walking (a listing of an unwatched table adds the watches itself).
func (t *Table) claimDeferred() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.deferred || (t.state != stateNew && !t.unwatched) {
		return false
	}
	t.deferred, t.building = false, true
	return true
}

// buildDeferred builds the table a listing deferred, or adds the watches
// a lazy load left out (unless a listing did first), and schedules its
// save.
func (t *Table) buildDeferred(ctx context.Context) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.building = false
	switch {
	case t.state == stateLive && t.unwatched:
		t.watchLoaded()
		t.scheduleSave()
		return
	case t.state != stateNew:
		return
	}
	t.quiet = true
	err := t.build(ctx, listener{})
	t.quiet = false
	if err == nil {
		t.scheduleSave()
	}
}

// ruleKey identifies a rule across compilations of its ignore file.
type ruleKey struct {
	source, text string
	line         int
	negate       bool
}

// intern returns the table's pointer for rule r; s.mu of the calling scope
// serialises calls.
func (t *Table) intern(r *gitignore.Rule) *gitignore.Rule {
	if r == nil {
		return nil
	}
	k := ruleKey{source: r.Source, text: r.Text, line: r.Line, negate: r.Negate}
	if p := t.rules[k]; p != nil {
		return p
	}
	if t.rules == nil {
		t.rules = map[ruleKey]*gitignore.Rule{}
	}
	t.rules[k] = r
	return r
}

// note queues a log line. Lines are logged by the listing that finds them,
// never by the event reader, so a table logs only while a call runs (a
// host's one-shot call returns before an idle table could write to its log).
func (t *Table) note(format string, args ...any) { t.log.Printf(format, args...) }

// turnOff gives up the table for this root; t.mu held.
func (t *Table) turnOff(why string) {
	t.note("no file table, grep and glob walk this root on every call: %s", why)
	t.state = stateOff
}

// build makes the watcher, watches what lies outside the tree, walks the
// root and starts the event reader; t.mu held.
func (t *Table) build(ctx context.Context, found listener) error {
	if fs := fsUnreliable(t.root); fs != "" {
		t.turnOff((&errUnreliable{dir: t.root, fs: fs}).Error())
		return nil
	}
	w, err := newWatcher()
	if errors.Is(err, errNoWatcher) {
		t.state = stateOff // the platform's normal case: no log line (hosts show stderr)
		return nil
	}
	if err != nil {
		t.turnOff(err.Error())
		return nil
	}
	t.w, t.byWD, t.special = w, map[int32]*dirNode{}, map[int32][]specialWatch{}
	loaded := t.load(ctx)
	if t.state != stateNew || (!loaded && ctx.Err() != nil) {
		w.close()
		t.w, t.top, t.byWD, t.special = nil, nil, nil, nil
		return ctx.Err()
	}
	if !loaded {
		return t.walkFirst(ctx, w, found)
	}
	return t.goLive(ctx, w, true)
}

// walkFirst builds the tree with a walk of the whole root and makes the
// table live; t.mu held.
func (t *Table) walkFirst(ctx context.Context, w *watcher, found listener) error {
	if err := t.rebuild(ctx, found); err != nil {
		w.close()
		t.w, t.top, t.byWD, t.special = nil, nil, nil, nil
		if t.state == stateNew {
			if ctx.Err() != nil {
				return err
			}
			t.note("%v", err)
			t.state = stateGone
		}
		return nil
	}
	if t.state != stateNew {
		return nil
	}
	return t.goLive(ctx, w, false)
}

// goLive makes the built or loaded table live and starts its event reader;
// a loaded table then lists or walks again what its revalidation asked
// for; t.mu held.
func (t *Table) goLive(ctx context.Context, w *watcher, loaded bool) error {
	t.rootIgnored = t.checkRootIgnored(ctx)
	t.state = stateLive
	t.readerDone = make(chan struct{})
	go t.reader(w, t.readerDone)
	if loaded {
		return t.apply(ctx)
	}
	return nil
}

// rebuild walks the whole root into a fresh tree; t.mu held. It turns the
// table off (and returns nil) when a limit or the file system forbids a
// table.
func (t *Table) rebuild(ctx context.Context, found listener) error {
	t.stats.Builds++
	// Watch what lies outside the tree again: a git dir's info/ may have
	// appeared since the last build.
	if err := t.watchOutside(); err != nil {
		t.turnOff(err.Error())
		return err
	}
	t.rules = nil // interned anew: every exclusion is recorded again
	s := newScope(t)
	s.all = true
	t.outside, t.outsideOK = outsidePrint(t.root)
	wd, pr, err := t.watchDir("")
	if err == nil && wd < 0 {
		err = fmt.Errorf("cannot watch %s", t.root)
	}
	if err != nil {
		t.turnOff(err.Error())
		return err
	}
	s.full[""] = &dirNode{wd: wd, repo: pr.git.mode != 0, print: pr}
	var meter *progress.Meter
	if !t.quiet {
		meter = t.reporter.Start(progress.TableWalk, t.root)
		defer meter.End()
	}
	s.found = counted(found, meter)
	t.mounts, t.mountsKnown = mountsBelow(t.root)
	files, err := s.run(ctx)
	t.mounts, t.mountsKnown = nil, false
	if err != nil {
		var unrel *errUnreliable
		if errors.Is(err, errWatchLimit) || errors.As(err, &unrel) {
			t.turnOff(err.Error())
		}
		return err
	}
	t.splice(s, files)
	// A whole walk leaves tens of megabytes of garbage on a large tree
	// (every walk.File of it); hand it back now rather than let the idle
	// server keep it resident.
	debug.FreeOSMemory()
	return nil
}

// listener is what a listing's caller is given of the files the walk
// that fills the table finds (Query.Found and Query.Open): fn sees each,
// with a descriptor open on it when opens (walk.Options.Open), else -1.
type listener struct {
	fn    func(walk.File, int)
	opens bool
}

// counted returns l counting each file on meter; l itself when there is
// no meter.
func counted(l listener, meter *progress.Meter) listener {
	if meter == nil {
		return l
	}
	fn := l.fn
	l.fn = func(f walk.File, fd int) {
		meter.Add(1)
		if fn != nil {
			fn(f, fd)
		}
	}
	return l
}

// options sets the Found or Open of a walk that reports to l.
func (l listener) options(opts *walk.Options) {
	switch {
	case l.fn == nil:
	case l.opens:
		opts.Open = l.fn
	default:
		fn := l.fn
		opts.Found = func(f walk.File) { fn(f, -1) }
	}
}

// listenerOf turns q.Found or q.Open into the listener of a walk of root:
// files below q.Start that q.Keep keeps, with paths relative to q.Start.
// The walk opens files for q.Open only when q lists the whole root as it
// is walked (no Keep): it would open files the query leaves out.
func listenerOf(root string, q Query) listener {
	switch {
	case q.Open != nil && q.Start == root && q.Keep == nil:
		return listener{fn: q.Open, opens: true}
	case q.Open == nil && q.Found == nil:
		return listener{}
	}
	prefix := ""
	if q.Start != root {
		rel, ok := strings.CutPrefix(q.Start, root+"/")
		if !ok {
			return listener{}
		}
		prefix = rel + "/"
	}
	return listener{fn: func(f walk.File, fd int) {
		rel, ok := strings.CutPrefix(f.Rel, prefix)
		if !ok {
			return
		}
		if q.Keep != nil && !q.Keep(rel, rel[strings.LastIndexByte(rel, '/')+1:]) {
			return
		}
		g := walk.File{Abs: f.Abs, Rel: rel, ModTime: f.ModTime, Size: f.Size}
		if q.Open != nil {
			q.Open(g, -1)
		} else {
			q.Found(g)
		}
	}}
}

// reader drains events into pending as they come, so the kernel queue does
// not overflow between calls and bursts are merged.
func (t *Table) reader(w *watcher, done chan struct{}) {
	defer close(done)
	for w.wait() {
		t.mu.Lock()
		if t.state != stateLive {
			t.mu.Unlock()
			return
		}
		if err := w.drain(t.record); err != nil {
			t.note("%v", err)
			t.pend.rebuild = true
		}
		t.mu.Unlock()
	}
}

// startNode returns the node of directory start when the table can answer a
// walk starting there, else nil; t.mu held.
func (t *Table) startNode(start string) *dirNode {
	if start == t.root {
		return t.top
	}
	rel, ok := strings.CutPrefix(start, t.root+"/")
	if !ok || rel == "" || t.rootIgnored {
		return nil
	}
	n := t.top
	for _, c := range strings.Split(rel, "/") {
		if n = n.child(c); n == nil {
			return nil
		}
	}
	// A walk starting inside a nested repository takes that repository's
	// rules as its base; only the root's walk reaches it from outside.
	for d := n; d != t.top; d = d.parent {
		if d.repo {
			return nil
		}
	}
	return n
}

// restat refreshes the size and time of the file name in d; false when it is
// no longer a regular file (the directory is then listed again).
func (t *Table) restat(d *dirNode, dirRel, name string) bool {
	i := d.file(name)
	if i < 0 {
		return true
	}
	st, err := os.Lstat(t.abs(joinRel(dirRel, name)))
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	if f := &d.files[i]; f.size != st.Size() || f.mtime != st.ModTime().UnixNano() {
		f.size, f.mtime = st.Size(), st.ModTime().UnixNano()
		t.orderOK = false
	}
	return true
}
