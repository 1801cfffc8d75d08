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
// What it reads before attach is counted as background output (nothing
// can write it: no one else knows the fifo yet).
func newOutFifo(path string, bg *bgCount) (*outFifo, error) {
	if err := unix.Mkfifo(path, 0o600); err != nil {
		return nil, &os.PathError{Op: "mkfifo", Path: path, Err: err}
	}
	r, err := os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		_ = os.Remove(path)
		return nil, err
	}
	w, err := os.OpenFile(path, os.O_WRONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		r.Close()
		_ = os.Remove(path)
		return nil, err
	}
	f := &outFifo{path: path, r: r, hold: w, bg: bg, done: make(chan struct{})}
	go f.read()
	return f, nil
}

// attach makes sink the command's capture: what the fifo brings from now
// on goes to it, until detach.
func (f *outFifo) attach(sink io.Writer) {
	f.mu.Lock()
	f.sink = sink
	f.mu.Unlock()
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

// detach ends the command's share of the fifo once its status came back
// (its name is left for the caller to remove, after the reply):
// what is in the pipe now was written before the status and goes to the
// sink, read here rather than waiting for the reader goroutine to be
// scheduled; what comes later is counted as background output. It reports
// whether a writer (a job the command left) still holds the fifo: the
// shell closed its end before it sent the status and the server's is
// closed here, so a read that finds no data and no end of file means one
// does.
func (f *outFifo) detach() bool {
	_ = f.hold.Close()
	f.mu.Lock()
	held := false
	if !f.eof {
		rc, err := f.r.SyscallConn()
		if err == nil {
			err = rc.Control(func(fd uintptr) { held = f.drainLocked(int(fd)) })
		}
		if err != nil { // the reader goroutine ended: it saw the end or an error
			held = false
		}
	}
	f.sink = nil
	f.mu.Unlock()
	return held
}

// drainLocked reads what the pipe holds now into the sink, then probes it
// once more: it reports whether a writer still holds the fifo (the probe
// found no data and no end of file). Bytes that arrive during the probe
// are a job's, counted. f.mu is held.
func (f *outFifo) drainLocked(fd int) bool {
	left, _ := unix.IoctlGetInt(fd, fionread)
	buf := make([]byte, max(1, min(left, 64<<10)))
	for left > 0 {
		n, err := unix.Read(fd, buf[:min(left, len(buf))])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n <= 0 {
			break
		}
		if f.sink != nil {
			_, _ = f.sink.Write(buf[:n])
		} else {
			f.bg.add(n)
		}
		left -= n
	}
	for {
		n, err := unix.Read(fd, buf[:1])
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case n == 0 && err == nil:
			f.eof = true
			return false
		case n > 0:
			f.bg.add(n)
			return true
		default: // EAGAIN: a writer holds the fifo; another error: treat as held
			return true
		}
	}
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
