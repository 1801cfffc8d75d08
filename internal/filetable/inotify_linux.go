//go:build linux && !toolrpc_portable

package filetable

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// hasWatcher: tables are kept here (see watcher_other.go for where not).
const hasWatcher = true

// dirMask is what a watch on a directory of the table asks for: entries
// created, deleted, renamed, written or with changed attributes, and the
// directory itself deleted or renamed.
const dirMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF |
	unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW | unix.IN_EXCL_UNLINK

// The inotify event bits events.go reads (watcher_other.go gives them
// the same values where there is no inotify).
const (
	inAttrib     = unix.IN_ATTRIB
	inCloseWrite = unix.IN_CLOSE_WRITE
	inCreate     = unix.IN_CREATE
	inDelete     = unix.IN_DELETE
	inDeleteSelf = unix.IN_DELETE_SELF
	inIgnored    = unix.IN_IGNORED
	inIsdir      = unix.IN_ISDIR
	inMaskAdd    = unix.IN_MASK_ADD
	inModify     = unix.IN_MODIFY
	inMovedFrom  = unix.IN_MOVED_FROM
	inMovedTo    = unix.IN_MOVED_TO
	inMoveSelf   = unix.IN_MOVE_SELF
	inOnlydir    = unix.IN_ONLYDIR
	inQOverflow  = unix.IN_Q_OVERFLOW
)

// eventBufSize is the read buffer of the inotify descriptor; an event is 16
// bytes plus its padded name, so one read returns hundreds of events.
const eventBufSize = 64 * 1024

// event is one inotify event.
type event struct {
	wd   int32
	mask uint32
	name string
}

// errWatchLimit reports that no more watches (or instances) can be had.
var errWatchLimit = errors.New("inotify limit reached")

// watchBudget, when positive, caps the watches one watcher adds as if
// fs.inotify.max_user_watches were reached (tests set it).
var watchBudget = 0

// unwatchable, when set, makes inotify_add_watch of each path it reports
// fail as for want of permission (tests set it).
var unwatchable func(path string) bool

// watcher owns one non-blocking inotify descriptor and an eventfd that wakes
// a goroutine waiting in wait.
type watcher struct {
	fd    int
	wake  int
	buf   []byte
	added atomic.Int64 // successful adds, for watchBudget
}

func newWatcher() (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		if err == unix.EMFILE {
			return nil, fmt.Errorf("inotify_init1: %w (fs.inotify.max_user_instances): %w", err, errWatchLimit)
		}
		return nil, fmt.Errorf("inotify_init1: %w", err)
	}
	wake, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("eventfd: %w", err)
	}
	return &watcher{fd: fd, wake: wake, buf: make([]byte, eventBufSize)}, nil
}

// add watches the directory path with mask and returns the watch descriptor
// (the same one again for a directory already watched). Running out of
// watches is errWatchLimit.
func (w *watcher) add(path string, mask uint32) (int32, error) {
	if unwatchable != nil && unwatchable(path) {
		return -1, fmt.Errorf("inotify_add_watch %s: %w", path, unix.EACCES)
	}
	wd, err := unix.InotifyAddWatch(w.fd, path, mask)
	if err == nil {
		if n := w.added.Add(1); watchBudget > 0 && n > int64(watchBudget) {
			_, _ = unix.InotifyRmWatch(w.fd, uint32(wd))
			err = unix.ENOSPC
		}
	}
	if err != nil {
		if err == unix.ENOSPC {
			return -1, fmt.Errorf("inotify_add_watch %s: %w (fs.inotify.max_user_watches): %w", path, err, errWatchLimit)
		}
		return -1, fmt.Errorf("inotify_add_watch %s: %w", path, err)
	}
	return int32(wd), nil
}

// rm removes a watch; a watch the kernel already dropped is no error.
func (w *watcher) rm(wd int32) {
	_, _ = unix.InotifyRmWatch(w.fd, uint32(wd))
}

// drain reads every queued event, calling fn for each, until the queue is
// empty. Because the kernel queues an event before the system call that
// caused it returns, a change that completed before drain was called is
// among the events drain delivers.
func (w *watcher) drain(fn func(event)) error {
	for {
		n, err := unix.Read(w.fd, w.buf)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return nil
		case err != nil:
			return fmt.Errorf("read inotify: %w", err)
		case n <= 0:
			return nil
		}
		if err := parseEvents(w.buf[:n], fn); err != nil {
			return err
		}
	}
}

// parseEvents decodes the inotify records in buf, calling fn for each.
func parseEvents(buf []byte, fn func(event)) error {
	for off := 0; off < len(buf); {
		if len(buf)-off < unix.SizeofInotifyEvent {
			return fmt.Errorf("inotify: short event header (%d bytes)", len(buf)-off)
		}
		h := buf[off : off+unix.SizeofInotifyEvent]
		ev := event{
			wd:   int32(binary.NativeEndian.Uint32(h[0:4])),
			mask: binary.NativeEndian.Uint32(h[4:8]),
		}
		nameLen := int(binary.NativeEndian.Uint32(h[12:16]))
		off += unix.SizeofInotifyEvent
		if nameLen < 0 || nameLen > len(buf)-off {
			return fmt.Errorf("inotify: name of %d bytes overruns the buffer", nameLen)
		}
		name := buf[off : off+nameLen]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		ev.name = string(name)
		off += nameLen
		fn(ev)
	}
	return nil
}

// wait blocks until events are queued (true) or close was called (false).
func (w *watcher) wait() bool {
	fds := []unix.PollFd{{Fd: int32(w.fd), Events: unix.POLLIN}, {Fd: int32(w.wake), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, -1)
		if err == unix.EINTR {
			continue
		}
		if err != nil || fds[1].Revents != 0 {
			return false
		}
		if fds[0].Revents != 0 {
			return true
		}
	}
}

// stop wakes wait for good.
func (w *watcher) stop() {
	var one [8]byte
	binary.NativeEndian.PutUint64(one[:], 1)
	_, _ = unix.Write(w.wake, one[:])
}

// close releases both descriptors (the kernel drops every watch). wait must
// have returned first.
func (w *watcher) close() {
	unix.Close(w.fd)
	unix.Close(w.wake)
}
