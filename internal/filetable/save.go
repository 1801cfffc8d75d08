package filetable

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"time"

	"github.com/toolrpc/toolrpc/internal/atomicfile"
	"github.com/toolrpc/toolrpc/internal/limits"
)

// saveDelay is limits.FileTableSaveDelay; tests shorten it.
var saveDelay = limits.FileTableSaveDelay

// gen counts what changed the table; t.mu held. A save records the gen it
// wrote, so an unchanged table is not written again.
func (t *Table) gen() int {
	return t.stats.Events + t.stats.Builds + t.stats.Rewalks + t.stats.Loads + t.revalidated
}

// scheduleSave arms the save timer when the table changed since its last
// save; t.mu held. The save runs on the timer's goroutine, never in a call.
func (t *Table) scheduleSave() {
	if t.store == "" || t.state != stateLive || t.saveTimer != nil || t.gen() == t.savedGen {
		return
	}
	t.saveTimer = time.AfterFunc(saveDelay, func() {
		t.mu.Lock()
		t.saveTimer = nil
		t.mu.Unlock()
		t.save(true)
	})
}

// save writes the table to its store when it changed since its last save.
// It tries again, up to limits.FileTableSaveTries times, when the tree
// changed while it stamped the directories; a failure is logged. With
// apply false it writes nothing when events wait to be applied (closing
// walks nothing: the file an earlier save wrote stays valid, a new server
// revalidates it).
func (t *Table) save(apply bool) {
	t.saveMu.Lock()
	defer t.saveMu.Unlock()
	t.saveLocked(apply)
}

// saveLocked is save with t.saveMu held.
func (t *Table) saveLocked(apply bool) {
	if t.store == "" {
		return
	}
	for range limits.FileTableSaveTries {
		done, err := t.saveOnce(apply)
		if err != nil {
			t.mu.Lock()
			t.note("file table not persisted: %v", err)
			t.mu.Unlock()
			return
		}
		if done {
			return
		}
	}
}

// saveOnce snapshots the tree under t.mu, stamps its directories without
// it, and writes the file only when no event arrived meanwhile, so the
// stamps describe the tree the file holds. done is false when the tree
// changed meanwhile.
func (t *Table) saveOnce(apply bool) (done bool, err error) {
	t.mu.Lock()
	if t.state == stateLive {
		if apply {
			err = t.ready(context.Background(), listener{})
		} else if err = t.w.drain(t.record); err != nil || !t.pend.empty() {
			t.mu.Unlock()
			return true, nil // the next listing handles a drain error
		}
	}
	gen := t.gen()
	if err != nil || t.state != stateLive || gen == t.savedGen {
		t.mu.Unlock()
		return true, err
	}
	e := &enc{b: []byte(storeMagic)}
	e.uint(storeVersion)
	e.str(t.root)
	saved := time.Now().UnixNano()
	e.int(saved)
	var tree enc
	dirs := t.encodeTree(&tree)
	t.mu.Unlock()

	outside, ok := outsidePrint(t.root)
	if !ok {
		return true, nil
	}
	prints := make([]dirPrint, len(dirs))
	for i, d := range dirs {
		prints[i] = stampDir(d)
	}
	if !t.unchangedSince(gen) {
		return false, nil
	}
	e.uint(uint64(len(outside)))
	for _, p := range outside {
		e.pathStamp(p)
	}
	e.b = append(e.b, tree.b...)
	for _, p := range prints {
		e.dirPrint(p)
	}
	sum := sha256.Sum256(e.b)
	if err := os.MkdirAll(filepath.Dir(t.store), 0o700); err != nil {
		return true, err
	}
	if err := atomicfile.WriteFile(t.store, append(e.b, sum[:]...), 0o600); err != nil {
		return true, err
	}
	t.mu.Lock()
	t.savedGen = gen
	t.mu.Unlock()
	return true, nil
}

// unchangedSince reads the pending events and reports whether the table is
// still live and nothing happened since it was at gen.
func (t *Table) unchangedSince(gen int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.state != stateLive {
		return false
	}
	if err := t.w.drain(t.record); err != nil {
		t.note("%v", err)
		t.pend.rebuild = true
	}
	return t.gen() == gen
}
