package process

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/toolrpc/toolrpc/limits"
)

// Table is one session's processes (SPEC §13.4): ids p1, p2, … in start
// order, at most limits.ProcessMaxLive live ones, and the last
// limits.ProcessMaxExited exited ones kept. A Table is safe for concurrent use.
type Table struct {
	dir string // where the logs go

	mu     sync.Mutex
	seq    int
	procs  []*entry // start order
	closed bool
}

type entry struct {
	id   string
	spec Spec
	p    *Process // nil while the process starts: its slot is reserved
}

// live reports whether e counts against limits.ProcessMaxLive: it is
// starting or has not exited.
func (e *entry) live() bool { return e.p == nil || !e.p.Exited() }

// NewTable returns a Table whose logs are written to dir/<id>.log.
func NewTable(dir string) *Table { return &Table{dir: dir} }

// LimitError is the refusal of a start past limits.ProcessMaxLive.
type LimitError struct {
	// Live names the live processes: "p3 (npm run dev)".
	Live []string
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%d processes are live, the most a session may run (stop one with signal KILL first): %s",
		limits.ProcessMaxLive, strings.Join(e.Live, ", "))
}

// ErrClosed is returned by Table.Start after Close.
var ErrClosed = fmt.Errorf("the session's processes were shut down")

// start starts a process and returns its id. spec.Log is set by the
// Table. The slot is reserved under t.mu before the process starts, so
// concurrent starts never pass limits.ProcessMaxLive.
func (t *Table) start(ctx context.Context, spec Spec) (string, *Process, error) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return "", nil, ErrClosed
	}
	var live []string
	for _, e := range t.procs {
		if e.live() {
			live = append(live, e.id+" ("+describe(e.spec)+")")
		}
	}
	if len(live) >= limits.ProcessMaxLive {
		t.mu.Unlock()
		return "", nil, &LimitError{Live: live}
	}
	t.seq++
	e := &entry{id: "p" + strconv.Itoa(t.seq), spec: spec}
	t.procs = append(t.procs, e)
	t.mu.Unlock()

	spec.Log = filepath.Join(t.dir, e.id+".log")
	p, err := Start(ctx, spec)
	t.mu.Lock()
	if err == nil && t.closed {
		t.mu.Unlock()
		p.Close()
		return "", nil, ErrClosed
	}
	if err != nil {
		t.procs = slices.DeleteFunc(t.procs, func(x *entry) bool { return x == e })
		t.mu.Unlock()
		return "", nil, err
	}
	e.p = p
	t.dropExited()
	t.mu.Unlock()
	return e.id, p, nil
}

func describe(s Spec) string {
	if s.Label != "" {
		return s.Label
	}
	c := s.Command
	if r := []rune(c); len(r) > 40 {
		c = string(r[:40]) + "…"
	}
	return c
}

// exited reports whether e's process has exited (a starting one has not).
func (e *entry) exited() bool { return e.p != nil && e.p.Exited() }

// dropExited forgets the oldest exited processes past ProcessMaxExited. It
// runs with t.mu held.
func (t *Table) dropExited() {
	exited := 0
	for _, e := range t.procs {
		if e.exited() {
			exited++
		}
	}
	keep := t.procs[:0]
	for _, e := range t.procs {
		if exited > limits.ProcessMaxExited && e.exited() {
			exited--
			_ = e.p.log.Close()
			continue
		}
		keep = append(keep, e)
	}
	t.procs = keep
}

// Get returns the process called id.
func (t *Table) Get(id string) (*Process, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.dropExited()
	for _, e := range t.procs {
		if e.id == id && e.p != nil {
			return e.p, true
		}
	}
	return nil, false
}

// Remove forgets the process called id after killing it (a cancelled start).
func (t *Table) Remove(id string) {
	t.mu.Lock()
	var p *Process
	t.procs = slices.DeleteFunc(t.procs, func(e *entry) bool {
		if e.id == id && e.p != nil {
			p = e.p
			return true
		}
		return false
	})
	t.mu.Unlock()
	if p != nil {
		p.Close()
	}
}

// kept returns the started processes kept, in start order.
func (t *Table) kept() []entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.dropExited()
	out := make([]entry, 0, len(t.procs))
	for _, e := range t.procs {
		if e.p != nil {
			out = append(out, *e)
		}
	}
	return out
}

// Close kills every process of the table and waits for their trees to die;
// later starts fail, and one under way kills its process. Close may be
// called more than once.
func (t *Table) Close() {
	t.mu.Lock()
	t.closed = true
	procs := t.procs
	t.procs = nil
	t.mu.Unlock()
	var wg sync.WaitGroup
	for _, e := range procs {
		if e.p == nil {
			continue
		}
		wg.Add(1)
		go func() { defer wg.Done(); e.p.Close() }()
	}
	wg.Wait()
}
