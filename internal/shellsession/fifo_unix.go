//go:build unix

package shellsession

import (
	"errors"
	"io"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// outFifo is one output fifo of one command: the server's read end, read
// by a goroutine into the command's capture until the command's status
// arrives, and into a discarding counter after it.
type outFifo struct {
	path string
	r    *os.File
	hold *os.File // the server's own write end: no EOF before the shell opens its end
	mu   sync.Mutex
	sink io.Writer // the command's capture; nil once the command has ended
	bg   *bgCount
	eof  bool
	done chan struct{}
}

// bgCount counts the bytes jobs wrote after their command's status.
type bgCount struct {
	mu sync.Mutex
	n  int64
}

func (c *bgCount) add(n int) {
	c.mu.Lock()
	c.n += int64(n)
	c.mu.Unlock()
}

// take returns the count and resets it.
func (c *bgCount) take() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n
	c.n = 0
	return n
}

// newOutFifo makes the fifo at path and opens both ends without blocking.
func newOutFifo(path string, sink io.Writer, bg *bgCount) (*outFifo, error) {
	if err := unix.Mkfifo(path, 0o600); err != nil {
		return nil, &os.PathError{Op: "mkfifo", Path: path, Err: err}
	}
	r, err := os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	w, err := os.OpenFile(path, os.O_WRONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		r.Close()
		return nil, err
	}
	f := &outFifo{path: path, r: r, hold: w, sink: sink, bg: bg, done: make(chan struct{})}
	go f.read()
	return f, nil
}

// read copies the fifo to the sink, or counts it once the command ended,
// until end of file. Each read and its attribution happen under mu, so
// detach sees every byte the command wrote go to the sink.
func (f *outFifo) read() {
	defer close(f.done)
	defer f.r.Close()
	rc, err := f.r.SyscallConn()
	if err != nil {
		return
	}
	buf := make([]byte, 64<<10)
	for {
		var n int
		var rerr error
		err := rc.Read(func(fd uintptr) bool {
			f.mu.Lock()
			defer f.mu.Unlock()
			for {
				n, rerr = unix.Read(int(fd), buf)
				if !errors.Is(rerr, unix.EINTR) {
					break
				}
			}
			if errors.Is(rerr, unix.EAGAIN) {
				return false
			}
			if n > 0 {
				if f.sink != nil {
					_, _ = f.sink.Write(buf[:n])
				} else {
					f.bg.add(n)
				}
			}
			if n == 0 && rerr == nil {
				f.eof = true
			}
			return true
		})
		if err != nil || rerr != nil || n <= 0 {
			return
		}
	}
}

// detach ends the command's share of the fifo once its status came back:
// what is in the pipe now was written before the status and goes to the
// sink; what comes later is counted as background output. It reports
// whether a writer (a job the command left) still holds the fifo.
func (f *outFifo) detach() bool {
	_ = f.hold.Close()
	for {
		f.mu.Lock()
		if f.eof || f.unread() == 0 {
			f.sink = nil
			eof := f.eof
			f.mu.Unlock()
			_ = os.Remove(f.path)
			if eof {
				return false
			}
			select {
			case <-f.done:
				return false
			default:
				return true
			}
		}
		f.mu.Unlock()
		// The reader goroutine is draining what is left.
		select {
		case <-f.done:
		default:
			runtimeYield()
		}
	}
}

// unread is how many bytes wait in the fifo (FIONREAD); an error counts as
// none.
func (f *outFifo) unread() int {
	rc, err := f.r.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	_ = rc.Control(func(fd uintptr) {
		if v, err := unix.IoctlGetInt(int(fd), fionread); err == nil {
			n = v
		}
	})
	return n
}

// abandon stops reading: the command's capture gets nothing more, and the
// fifo is removed (a killed command's tree is gone; a job's late output is
// counted).
func (f *outFifo) abandon() {
	f.mu.Lock()
	f.sink = nil
	f.mu.Unlock()
	_ = f.hold.Close()
	_ = os.Remove(f.path)
}
