package filetable

import (
	"errors"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/toolrpc/toolrpc/limits"
)

// load makes the tree from the table an earlier server persisted, watches
// every directory of it, then revalidates each against the file system,
// leaving in t.pend what the next apply must list or walk again; t.mu held.
// It returns false when there is no usable persisted table (the caller
// walks the root), or when the table was turned off.
//
// Every watch is added before any directory is stamped, and each directory
// is compared with its stamps at the save: a change made before the watch
// shows in a stamp, a change made after it is an event.
func (t *Table) load() bool {
	s := t.readStore()
	if s == nil {
		return false
	}
	if err := t.watchOutside(); err != nil {
		t.turnOff(err.Error())
		return false
	}
	outside, ok := outsidePrint(t.root)
	if !ok || !sameStamps(s.outside, outside, s.saved) {
		return false
	}
	for _, r := range s.rules {
		t.intern(r)
	}
	for _, d := range s.dirs {
		sortNodes(d.dirs)
		d.dirs = slices.Clip(d.dirs)
		wd, repo, err := t.watchDir(d.path)
		if err != nil {
			t.forget(s)
			t.turnOff(err.Error())
			return false
		}
		d.wd, d.repo = wd, repo
		if wd >= 0 {
			t.byWD[wd] = d
		}
	}
	t.top = s.dirs[0]
	t.orderOK = false
	t.stats.Loads++
	verdicts, changed := revalidate(t, s)
	t.revalidated += changed
	clean := changed == 0
	for i, v := range verdicts {
		t.markVerdict(s.dirs[i], v)
		clean = clean && v == printSame
	}
	if clean { // the file still describes the tree: no need to write it again
		t.savedGen = t.gen()
	}
	debug.FreeOSMemory()
	return true
}

// forget drops the watches load added for s's directories; t.mu held.
func (t *Table) forget(s *stored) {
	for _, d := range s.dirs {
		if d.wd >= 0 && t.byWD[d.wd] == d {
			delete(t.byWD, d.wd)
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

// revalidate stamps every directory of s again, in parallel, and returns
// each one's verdict. The files of a directory whose listing stands are
// stat'ed: a changed size or time updates the entry (changed counts
// them), a file that is no longer a regular file lists the directory
// again. t.mu is held and no event reader runs: the workers own the
// directories they are given.
func revalidate(t *Table, s *stored) ([]printVerdict, int) {
	verdicts := make([]printVerdict, len(s.dirs))
	var next, changed atomic.Int64
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(s.dirs) {
					return
				}
				var n int
				verdicts[i], n = revalidateDir(t, s, i)
				changed.Add(int64(n))
			}
		}()
	}
	wg.Wait()
	return verdicts, int(changed.Load())
}

// revalidateDir judges directory i of s against its stamps and, when its
// listing stands, lstats its files: a changed size or time updates the
// entry (n counts them), a file that is no longer a regular file lists the
// directory again.
func revalidateDir(t *Table, s *stored, i int) (v printVerdict, n int) {
	d := s.dirs[i]
	abs := t.abs(d.path)
	ds, ok := openStamper(abs)
	if !ok {
		return s.prints[i].compare(dirPrint{}, s.saved), 0
	}
	defer ds.close()
	if v = s.prints[i].compare(printDir(abs, ds, true), s.saved); v != printSame {
		return v, 0
	}
	for k := range d.files {
		f := &d.files[k]
		st := ds.stamp(f.name)
		if !st.isRegular() {
			return printRelist, n
		}
		if st.size != f.size || st.mtime != f.mtime {
			f.size, f.mtime = st.size, st.mtime
			n++
		}
	}
	return printSame, n
}

// readStore returns the table persisted for t.root, or nil when there is
// none or it cannot be used (a line says why, unless there is none).
func (t *Table) readStore() *stored {
	if t.store == "" {
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
	data, err := io.ReadAll(io.LimitReader(f, limits.FileTableMaxStoreBytes+1))
	if err == nil && len(data) > limits.FileTableMaxStoreBytes {
		err = errors.New("larger than limits.FileTableMaxStoreBytes")
	}
	var s *stored
	if err == nil {
		s, err = decodeStore(data, t.root)
	}
	if err != nil {
		t.note("persisted file table %s ignored, walking the root: %v", t.store, err)
		return nil
	}
	return s
}
