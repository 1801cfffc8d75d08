//go:build !linux || toolrpc_portable

package filetable

import "errors"

// No reliable watcher: macOS's FSEvents coalesces and delays events, kqueue
// needs a descriptor per file, and Windows' ReadDirectoryChangesW drops
// events when its buffer overflows; none gives the "every change before the
// call is seen" guarantee the table rests on. So there is no table here:
// newWatcher fails, the table turns off with one log line, and grep and
// glob walk the root on every call, which SPEC §12 allows.

// hasWatcher: no table is ever kept here, so no build is deferred either.
const hasWatcher = false

// The inotify event bits events.go reads, with Linux's values; no event
// ever carries them here.
const (
	inAttrib     = 0x4
	inCloseWrite = 0x8
	inCreate     = 0x100
	inDelete     = 0x200
	inDeleteSelf = 0x400
	inIgnored    = 0x8000
	inIsdir      = 0x40000000
	inMaskAdd    = 0x20000000
	inModify     = 0x2
	inMovedFrom  = 0x40
	inMovedTo    = 0x80
	inMoveSelf   = 0x800
	inOnlydir    = 0x1000000
	inQOverflow  = 0x4000
)

// errWatchLimit reports that no more watches (or instances) can be had.
var errWatchLimit = errors.New("watch limit reached")

// watchBudget is unused without inotify (tests set it on Linux).
var watchBudget = 0

// dirMask is unused without inotify.
const dirMask = 0

// event is one change event.
type event struct {
	wd   int32
	mask uint32
	name string
}

// watcher is never made here.
type watcher struct{}

func newWatcher() (*watcher, error) { return nil, errNoWatcher }

func (w *watcher) add(string, uint32) (int32, error) { return -1, errNoWatcher }
func (w *watcher) rm(int32)                          {}
func (w *watcher) drain(func(event)) error           { return errNoWatcher }
func (w *watcher) wait() bool                        { return false }
func (w *watcher) stop()                             {}
func (w *watcher) close()                            {}

// Without inotify no table is persisted: there is nothing to stamp.
func lstatStamp(string, bool) stamp { return stamp{} }

type dirStamper struct{}

func openStamper(string) (dirStamper, bool) { return dirStamper{}, false }
func (dirStamper) stamp(string) stamp       { return stamp{} }
func (dirStamper) close()                   {}

func (dirStamper) stampDev(string) (stamp, uint64) { return stamp{}, 0 }
func (dirStamper) unreliable() string              { return "" }
func devOf(string) uint64                          { return 0 }
