package process

import (
	"context"
	"fmt"
	"path/filepath"
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
	id string
	p  *Process
}

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

// ErrClosed is returned by Start after Close.
var ErrClosed = fmt.Errorf("the session's processes were shut down")

// Start starts a process and returns its id. spec.Log is set by the Table.
func (t *Table) Start(ctx context.Context, spec Spec) (string, *Process, error) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return "", nil, ErrClosed
	}
	var live []string
	for _, e := range t.procs {
		if !e.p.Exited() {
			live = append(live, e.id+" ("+describe(e.p.spec)+")")
		}
	}
	if len(live) >= limits.ProcessMaxLive {
		t.mu.Unlock()
		return "", nil, &LimitError{Live: live}
	}
	t.seq++
	id := "p" + strconv.Itoa(t.seq)
	t.mu.Unlock()

	spec.Log = filepath.Join(t.dir, id+".log")
	p, err := Start(ctx, spec)
	if err != nil {
		return "", nil, err
	}
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		p.Close()
		return "", nil, ErrClosed
	}
	t.procs = append(t.procs, &entry{id: id, p: p})
	t.dropExited()
	t.mu.Unlock()
	return id, p, nil
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

// dropExited forgets the oldest exited processes past ProcessMaxExited. It
// runs with t.mu held.
func (t *Table) dropExited() {
	exited := 0
	for _, e := range t.procs {
		if e.p.Exited() {
			exited++
		}
	}
	keep := t.procs[:0]
	for _, e := range t.procs {
		if exited > limits.ProcessMaxExited && e.p.Exited() {
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
		if e.id == id {
			return e.p, true
		}
	}
	return nil, false
}

// Remove forgets the process called id after killing it (a cancelled start).
func (t *Table) Remove(id string) {
	t.mu.Lock()
	var p *Process
	for i, e := range t.procs {
		if e.id == id {
			p = e.p
			t.procs = append(t.procs[:i], t.procs[i+1:]...)
			break
		}
	}
	t.mu.Unlock()
	if p != nil {
		p.Close()
	}
}

// Listed is one process of List.
type Listed struct {
	ID string
	P  *Process
}

// List returns every process kept, in start order.
func (t *Table) List() []Listed {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.dropExited()
	out := make([]Listed, len(t.procs))
	for i, e := range t.procs {
		out[i] = Listed{e.id, e.p}
	}
	return out
}

// Close kills every process of the table and waits for their trees to die;
// later Starts fail. Close may be called more than once.
func (t *Table) Close() {
	t.mu.Lock()
	t.closed = true
	procs := t.procs
	t.procs = nil
	t.mu.Unlock()
	var wg sync.WaitGroup
	for _, e := range procs {
		wg.Add(1)
		go func() { defer wg.Done(); e.p.Close() }()
	}
	wg.Wait()
}
