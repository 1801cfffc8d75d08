package filetable

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"time"

	"github.com/toolrpc/toolrpc/internal/atomicfile"
	"github.com/toolrpc/toolrpc/limits"
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

// save writes the table to its store when it changed since its last save;
// a failure is logged. With apply false it writes nothing when events wait
// to be applied (closing walks nothing: the file an earlier save wrote
// stays valid, a new server revalidates it).
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
	if err := t.saveOnce(apply); err != nil {
		t.mu.Lock()
		t.note("file table not persisted: %v", err)
		t.mu.Unlock()
	}
}

// saveOnce encodes the table under t.mu and writes it without it.
//
// A save stamps nothing: each directory is written with the print taken
// when the table last listed it (after its watch, before the listing) and
// the outside stamps with those taken when the outside was last watched.
// A listing the table kept although its directory changed since (an event
// missed or held back, a directory that could not be watched) is thereby
// written with the stamps of the directory it lists, which the next server
// finds changed; a save by path at save time would have stamped the
// changed directory and vouched for the stale listing.
func (t *Table) saveOnce(apply bool) error {
	t.mu.Lock()
	var err error
	if t.state == stateLive {
		if apply {
			err = t.ready(context.Background(), listener{}, time.Now())
		} else if err = t.w.drain(t.record); err != nil || !t.pend.empty() {
			t.mu.Unlock()
			return nil // the next listing handles a drain error
		}
	}
	gen := t.gen()
	if err != nil || t.state != stateLive || gen == t.savedGen || !t.outsideOK {
		t.mu.Unlock()
		return err
	}
	e := &enc{b: []byte(storeMagic)}
	e.uint(storeVersion)
	e.str(t.root)
	// Every stamp written was taken before this moment, as a load's racy
	// window asks.
	e.int(time.Now().UnixNano())
	e.uint(uint64(len(t.outside)))
	for _, p := range t.outside {
		e.pathStamp(p)
	}
	prints := t.encodeTree(e)
	t.mu.Unlock()

	for _, p := range prints {
		e.dirPrint(p)
	}
	sum := sha256.Sum256(e.b)
	if err := os.MkdirAll(filepath.Dir(t.store), 0o700); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(t.store, append(e.b, sum[:]...), 0o600); err != nil {
		return err
	}
	t.mu.Lock()
	t.savedGen = gen
	t.mu.Unlock()
	return nil
}
