package contentindex

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/toolrpc/toolrpc/internal/atomicfile"
	"github.com/toolrpc/toolrpc/limits"
)

// merge joins the runs into dir/index, written atomically. It fails with
// ErrQuota as soon as the output passes limits.IndexQuotaPercent of the
// text indexed.
func (b *builder) merge() error {
	runs, err := b.runs()
	if err != nil {
		return err
	}
	var rs []*runReader
	defer func() {
		for _, r := range rs {
			r.close()
		}
	}()
	for _, r := range runs {
		rr, err := openRun(r)
		if err != nil {
			return err
		}
		rs = append(rs, rr)
	}
	var text int64
	for _, d := range b.docs {
		if d.flags&docIndexed != 0 {
			text += d.size
		}
	}
	if b.block > maxDocs {
		return fmt.Errorf("%d blocks: %w", b.block, ErrTooManyFiles)
	}
	return writeIndex(filepath.Join(b.dir, indexName), b.root, b.docs, text, func(emit emitFunc) error {
		n := 0
		return mergeRuns(rs, func(tri uint32, ids []uint32, masks []uint16) error {
			if n++; n%1024 == 0 {
				b.pace.tick()
			}
			return emit(tri, ids, masks)
		})
	})
}

// emitFunc takes one trigram's ascending documents and their masks.
type emitFunc func(tri uint32, ids []uint32, masks []uint16) error

// mergeRuns calls emit with each trigram and its documents, ascending.
func mergeRuns(rs []*runReader, emit emitFunc) error {
	var ids []uint32
	var masks []uint16
	for {
		tri := uint32(runEnd)
		for _, r := range rs {
			if !r.done && r.tri < tri {
				tri = r.tri
			}
		}
		if tri == runEnd {
			return nil
		}
		ids, masks = ids[:0], masks[:0]
		for _, r := range rs {
			if !r.done && r.tri == tri {
				ids = append(ids, r.ids...)
				masks = append(masks, r.masks...)
				if err := r.next(); err != nil {
					return err
				}
			}
		}
		if err := emit(tri, ids, masks); err != nil {
			return err
		}
	}
}

// writeIndex writes the index file at path: lists produces the postings in
// trigram order through emit.
func writeIndex(path, root string, docs []docRec, text int64, lists func(emit emitFunc) error) error {
	a, err := atomicfile.Create(path, 0o600)
	if err != nil {
		return err
	}
	w := &countWriter{w: bufio.NewWriterSize(a, 256<<10)}
	// The trigram table goes to a scratch file first, so its size does
	// not count against the builder's memory.
	tf, err := os.CreateTemp(filepath.Dir(path), ".trigrams-*.tmp")
	if err != nil {
		a.Abort()
		return err
	}
	defer func() { _ = tf.Close(); _ = os.Remove(tf.Name()) }()
	tab := &countWriter{w: bufio.NewWriterSize(tf, 64<<10)}
	quota := max(text*limits.IndexQuotaPercent/100, limits.IndexQuotaMinBytes)
	nblocks := 0
	for _, d := range docs {
		nblocks += int(d.blocks)
	}
	var ent, buf []byte
	ntri := 0
	err = lists(func(tri uint32, ids []uint32, masks []uint16) error {
		ent = binary.LittleEndian.AppendUint32(ent[:0], tri)
		ent = binary.LittleEndian.AppendUint32(ent, uint32(len(ids)))
		if w.n > math.MaxUint32 {
			return fmt.Errorf("postings past 4 GiB: %w", ErrQuota)
		}
		ent = binary.LittleEndian.AppendUint32(ent, uint32(w.n))
		tab.write(ent)
		ntri++
		buf = encodeList(buf[:0], ids, masks, nblocks)
		w.write(buf)
		if w.n+tab.n > quota {
			return fmt.Errorf("%w: more than %d%% of %d bytes of text", ErrQuota, limits.IndexQuotaPercent, text)
		}
		return errors.Join(w.err, tab.err)
	})
	if err == nil {
		err = tab.w.Flush()
	}
	if err == nil {
		_, err = tf.Seek(0, io.SeekStart)
	}
	if err != nil {
		a.Abort()
		return err
	}
	f := footer{ndocs: uint32(len(docs)), ntri: uint32(ntri), nblocks: uint32(nblocks), textBytes: uint64(text)}
	f.triOff = uint64(w.n)
	if w.err == nil {
		var n int64
		n, w.err = io.Copy(w.w, tf)
		w.n += n
	}
	f.docOff = uint64(w.n)
	var rec []byte
	off, block := 0, uint32(0)
	for _, d := range docs {
		rec = binary.LittleEndian.AppendUint32(rec[:0], uint32(off))
		rec = binary.LittleEndian.AppendUint32(rec, uint32(len(d.rel)))
		rec = binary.LittleEndian.AppendUint64(rec, uint64(d.size))
		rec = binary.LittleEndian.AppendUint64(rec, uint64(d.mtime))
		rec = binary.LittleEndian.AppendUint32(rec, d.flags)
		rec = binary.LittleEndian.AppendUint32(rec, block)
		w.write(rec)
		off += len(d.rel)
		block += d.blocks
	}
	f.startOff = uint64(w.n)
	for _, d := range docs {
		if d.blocks == 0 {
			continue
		}
		if len(d.starts) != int(d.blocks)-1 {
			a.Abort()
			return fmt.Errorf("%s: %d blocks, %d starts: %w", d.rel, d.blocks, len(d.starts), errCorrupt)
		}
		rec = binary.LittleEndian.AppendUint32(rec[:0], 0)
		for _, st := range d.starts {
			rec = binary.LittleEndian.AppendUint32(rec, st)
		}
		w.write(rec)
	}
	f.pathOff = uint64(w.n)
	w.write([]byte(joinPaths(docs)))
	f.rootOff = uint64(w.n)
	w.write([]byte(root))
	f.rootLen = uint64(len(root))
	w.write(f.encode())
	if w.err == nil {
		w.err = w.w.Flush()
	}
	if w.err != nil {
		a.Abort()
		return w.err
	}
	return a.Commit()
}

// countWriter counts what it writes and keeps the first error.
type countWriter struct {
	w   *bufio.Writer
	n   int64
	err error
}

func (c *countWriter) write(p []byte) {
	if c.err != nil {
		return
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
}
