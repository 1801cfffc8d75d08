package contentindex

import (
	"slices"
	"time"

	"github.com/toolrpc/toolrpc/limits"
)

// overlayDoc is a file read since the base index was built.
type overlayDoc struct {
	size, mtime int64
	tris        []uint32 // sorted, folded
	masks       []uint16 // masks of tris
}

// has reports whether the document holds term t.
func (o *overlayDoc) has(t uint64) bool {
	i, ok := slices.BinarySearch(o.tris, uint32(t&triMask))
	return ok && termAllows(t, o.masks[i])
}

// readChanged reads one changed file into the overlay.
func (m *Manager) readChanged(rel string, set *triSet, buf []byte) {
	m.mu.RLock()
	o, known := m.overlay[rel]
	full := len(m.overlay) >= limits.IndexOverlayMaxFiles || m.ovBytes >= limits.IndexOverlayMaxBytes
	m.mu.RUnlock()
	if full {
		return
	}
	size, mtime, flags := scanFile(m.opts.Root+"/"+rel, set, buf, time.Now(), nil)
	if flags&docIndexed == 0 || (known && o.size == size && o.mtime == mtime) {
		return
	}
	tris := slices.Clone(set.Sorted())
	masks := make([]uint16, len(tris))
	for i, t := range tris {
		masks[i] = set.Mask(t)
	}
	m.mu.Lock()
	m.overlay[rel] = overlayDoc{size: size, mtime: mtime, tris: tris, masks: masks}
	m.ovBytes += 6 * len(tris)
	m.mu.Unlock()
}
