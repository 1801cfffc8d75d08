package lineindex

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/toolrpc/toolrpc/limits"
)

var racyWindow = limits.LineIndexRacyWindow // tests shorten it

// Key identifies one version of a file: its identity, size and change times.
type Key struct {
	Dev, Ino     uint64
	Size         int64
	Mtime, Ctime int64 // Unix nanoseconds
	Form         Form  // how its lines end (set by IndexForm)
}

// KeyOf returns the key of the file fi describes. ok is false when the
// platform reports no device and inode, and such a file is never cached.
func KeyOf(fi os.FileInfo) (k Key, ok bool) {
	dev, ino, ctime, ok := identity(fi)
	if !ok {
		return Key{Size: fi.Size(), Mtime: fi.ModTime().UnixNano()}, false
	}
	return Key{Dev: dev, Ino: ino, Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Ctime: ctime}, true
}

// ChangeTime returns the status-change time of the file fi describes in Unix
// nanoseconds; ok is false where the platform has none (Windows).
func ChangeTime(fi os.FileInfo) (ns int64, ok bool) {
	_, _, ns, ok = identity(fi)
	return ns, ok
}

// Cache holds the indexes of the files a session read, bounded in total size.
// It is safe for concurrent use; concurrent requests for one version share a
// single pass.
type Cache struct {
	maxBytes int

	mu    sync.Mutex
	used  int
	lru   *list.List // of *entry, front = most recently used
	byKey map[Key]*list.Element
}

type entry struct {
	key   Key
	ready chan struct{} // closed when ix or err is set
	ix    *Index
	err   error
	built time.Time // when the pass started
	cost  int       // what the entry adds to Cache.used; 0 until kept
}

// NewCache returns an empty cache holding at most maxBytes of indexes. A single
// index larger than that is returned but not kept.
func NewCache(maxBytes int) *Cache {
	return &Cache{maxBytes: maxBytes, lru: list.New(), byKey: map[Key]*list.Element{}}
}

// Len returns the number of cached indexes.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// Index returns the index of the open file f, whose Stat is fi: the cached one
// when f's key matches an index that is not racy, else a fresh pass over
// f's first fi.Size() bytes.
func (c *Cache) Index(ctx context.Context, f *os.File, fi os.FileInfo) (*Index, error) {
	return c.IndexForm(ctx, f, fi, Bytes)
}

// IndexForm is Index for a file whose lines end as form says; indexes of
// one version in different forms are cached apart.
func (c *Cache) IndexForm(ctx context.Context, f *os.File, fi os.FileInfo, form Form) (*Index, error) {
	k, ok := KeyOf(fi)
	k.Form = form
	if !ok {
		return BuildForm(ctx, io.NewSectionReader(f, 0, fi.Size()), form)
	}
	for {
		e, owner := c.lookup(k)
		if owner {
			return c.build(ctx, e, f)
		}
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, fmt.Errorf("index %s: %w", f.Name(), ctx.Err())
		}
		if e.err == nil {
			return e.ix, nil
		}
		if !errors.Is(e.err, context.Canceled) && !errors.Is(e.err, context.DeadlineExceeded) {
			return nil, e.err
		}
		// The pass we waited for was cancelled by its own caller: run our own.
	}
}

// lookup returns the entry for k, creating it (owner true) when it is
// missing or racy.
func (c *Cache) lookup(k Key) (e *entry, owner bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[k]; ok {
		e := el.Value.(*entry)
		select {
		case <-e.ready:
			if !racy(e) {
				c.lru.MoveToFront(el)
				return e, false
			}
			c.removeLocked(el)
		default:
			return e, false // a pass is running: share it
		}
	}
	e = &entry{key: k, ready: make(chan struct{}), built: time.Now()}
	c.byKey[k] = c.lru.PushFront(e)
	return e, true
}

// racy reports whether e was built so soon after its file last changed that a
// later write may have left the key unchanged.
func racy(e *entry) bool {
	limit := e.built.Add(-racyWindow).UnixNano()
	return e.key.Mtime >= limit || e.key.Ctime >= limit
}

func (c *Cache) build(ctx context.Context, e *entry, f *os.File) (*Index, error) {
	ix, err := BuildForm(ctx, io.NewSectionReader(f, 0, e.key.Size), e.key.Form)
	if err != nil {
		err = fmt.Errorf("index %s: %w", f.Name(), err)
	}
	c.mu.Lock()
	e.ix, e.err = ix, err
	el := c.byKey[e.key]
	if el == nil || el.Value.(*entry) != e {
		el = nil
	}
	switch {
	case el == nil:
	case err != nil || ix.cost() > c.maxBytes:
		c.removeLocked(el)
	default:
		e.cost = ix.cost()
		c.used += e.cost
		for b := c.lru.Back(); b != nil && c.used > c.maxBytes; {
			prev := b.Prev()
			if b != el && b.Value.(*entry).cost > 0 {
				c.removeLocked(b)
			}
			b = prev
		}
	}
	c.mu.Unlock()
	close(e.ready)
	return ix, err
}

func (c *Cache) removeLocked(el *list.Element) {
	e := el.Value.(*entry)
	c.lru.Remove(el)
	if c.byKey[e.key] == el {
		delete(c.byKey, e.key)
	}
	c.used -= e.cost
	e.cost = 0
}
