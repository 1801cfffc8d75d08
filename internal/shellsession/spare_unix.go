//go:build unix

package shellsession

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// fifoPair is one command's stdout and stderr fifos, or why they could not
// be made.
type fifoPair struct {
	out, err *outFifo
	fail     error
}

// abandon gives the pair up unused.
func (f fifoPair) abandon() {
	for _, o := range []*outFifo{f.out, f.err} {
		if o != nil {
			o.abandon()
		}
	}
}

// spareFifos makes the next command's fifo pair while the session is idle,
// so that making two fifos, opening four ends and starting their readers is
// not part of a command's time. At most one pair is made or waiting at a
// time.
type spareFifos struct {
	dir string
	bg  *bgCount
	n   int // pairs made; only the session's running command touches it

	making  sync.WaitGroup // a pair being made
	mu      sync.Mutex
	trash   []string // names of used fifos, removed by the next prepare
	closed  bool
	pending bool          // a pair is being made or waits in ready
	ready   chan fifoPair // capacity 1
	gone    chan struct{} // closed by close
}

func newSpareFifos(dir string, bg *bgCount) *spareFifos {
	return &spareFifos{dir: dir, bg: bg, ready: make(chan fifoPair, 1), gone: make(chan struct{})}
}

// makePair makes pair number n in dir.
func makePair(dir string, n int, bg *bgCount) fifoPair {
	tag := strconv.Itoa(n)
	out, err := newOutFifo(filepath.Join(dir, "o."+tag), bg)
	if err != nil {
		return fifoPair{fail: err}
	}
	errf, err := newOutFifo(filepath.Join(dir, "e."+tag), bg)
	if err != nil {
		out.abandon()
		return fifoPair{fail: err}
	}
	return fifoPair{out: out, err: errf}
}

// prepare starts making the next pair, unless one is under way or the
// session's plumbing is closed.
func (s *spareFifos) prepare() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.pending {
		return
	}
	s.pending = true
	s.n++
	n := s.n
	trash := s.trash
	s.trash = nil
	s.making.Add(1)
	go func() {
		defer s.making.Done()
		for _, name := range trash {
			_ = os.Remove(name)
		}
		p := makePair(s.dir, n, s.bg)
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed {
			p.abandon()
			return
		}
		s.ready <- p
	}()
}

// discard has the next prepare remove the used fifos' names (the
// session's end removes its whole directory).
func (s *spareFifos) discard(fifos ...*outFifo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range fifos {
		s.trash = append(s.trash, f.path)
	}
}

// errSpareClosed is take's answer once the session's plumbing is closed.
var errSpareClosed = errors.New("shell session: ended")

// take returns the prepared pair, waiting for it (or starts one now if
// none is under way), unless the session's plumbing is closed. A shell
// that died meanwhile still gets its command's pair: the command then
// ends as the shell's end says.
func (s *spareFifos) take() (*outFifo, *outFifo, error) {
	s.prepare()
	select {
	case p := <-s.ready:
		s.mu.Lock()
		s.pending = false
		s.mu.Unlock()
		return p.out, p.err, p.fail
	case <-s.gone:
		return nil, nil, errSpareClosed
	}
}

// close gives up a pair made or being made, once it is made (so that no
// fifo is made in the session's directory after close returns); prepare
// does nothing after it.
func (s *spareFifos) close() {
	s.mu.Lock()
	if !s.closed {
		close(s.gone)
	}
	s.closed = true
	select {
	case p := <-s.ready:
		p.abandon()
	default:
	}
	s.mu.Unlock()
	s.making.Wait()
}

// prepareNext starts making the next command's fifos.
func (p *shellProc) prepareNext() { p.spare.prepare() }
