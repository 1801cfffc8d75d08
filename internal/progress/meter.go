package progress

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Kind is what a build makes.
type Kind int

// The builds that report.
const (
	// TableWalk is the walk of a whole root that fills its file table.
	TableWalk Kind = iota
	// IndexBuild is the build of a root's content index: a listing of the
	// root, then every listed file read.
	IndexBuild
	// TableLoad is the load of a root's stored file table that initialize
	// starts: every directory stamped again, counted of the total.
	TableLoad
)

// title is what a client shows for a build of kind over root.
func (k Kind) title(root string) string {
	switch k {
	case IndexBuild:
		return "Indexing " + root
	case TableLoad:
		return "Loading the file list of " + root
	}
	return "Listing files in " + root
}

// Meter holds one build's counters. The build advances it from any
// goroutine; advancing costs an atomic add and never waits for the client.
// A nil *Meter does nothing.
type Meter struct {
	kind  Kind
	done  atomic.Int64 // files found (total 0) or files done of total
	total atomic.Int64 // 0 while the total is not known

	endOnce sync.Once
	ended   chan struct{}
}

func newMeter(kind Kind) *Meter { return &Meter{kind: kind, ended: make(chan struct{})} }

// Add counts n more files.
func (m *Meter) Add(n int) {
	if m != nil {
		m.done.Add(int64(n))
	}
}

// SetTotal says the build now works through n files: from here on, Add
// counts files done of n (and the count starts again at 0).
func (m *Meter) SetTotal(n int) {
	if m != nil {
		m.done.Store(0)
		m.total.Store(int64(n))
	}
}

// End ends the build; later calls do nothing. Every Meter a Reporter
// started must be ended, or its client shows the build running until the
// session ends.
func (m *Meter) End() {
	if m != nil {
		m.endOnce.Do(func() { close(m.ended) })
	}
}

// Status is what a client is shown of a build at one moment.
type Status struct {
	// Title names the build: "Indexing /src/linux".
	Title string
	// Message says how far it is: "1200 files found", "1200 of 78000 files".
	Message string
	// Percent is 0–100, or -1 while the total is not known.
	Percent int
}

// snapshot returns the meter's status; floor is the least percentage to
// show (the last one shown), so the percentage never falls.
func (m *Meter) snapshot(title string, floor int) Status {
	total := m.total.Load()
	done := m.done.Load()
	if total != m.total.Load() { // SetTotal ran in between: done may be the listing's
		total, done = m.total.Load(), 0
	}
	if total <= 0 {
		what := "files found"
		if m.kind == IndexBuild {
			what = "files listed"
		}
		return Status{Title: title, Message: fmt.Sprintf("%d %s", done, what), Percent: -1}
	}
	done = min(done, total)
	what := "files"
	if m.kind == TableLoad {
		what = "directories checked"
	}
	return Status{Title: title, Message: fmt.Sprintf("%d of %d %s", done, total, what), Percent: max(int(done*100/total), floor)}
}
