package contentindex

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolrpc/toolrpc/internal/atomicfile"
)

// A run file holds the documents [lo, hi) of a build:
//
//	"TRIRUN01", lo u32, hi u32
//	hi-lo × {size i64, mtime i64, flags u32, blocks u32}
//	n u32, n × u32: where each block but the first starts, of the documents in order
//	groups of {tri u32, count uvarint, block ids as uvarint deltas (the first absolute), count masks u16}, ascending by tri
//	tri 0xFFFFFFFF
const (
	runMagic = "TRIRUN06" // 02: folded trigrams, 8-bit masks; 03: 16-bit masks; 04: three-byte followers; 05: blocks; 06: block starts
	runDoc   = 24         // bytes of a document's record
	runEnd   = 0xFFFFFFFF
)

type runFile struct {
	path   string
	lo, hi int
}

func runName(lo, hi int) string { return fmt.Sprintf("run-%09d-%09d", lo, hi) }

// runs lists the complete run files of the build directory by first document.
func (b *builder) runs() ([]runFile, error) {
	ents, err := os.ReadDir(b.build)
	if err != nil {
		return nil, err
	}
	var rs []runFile
	for _, e := range ents {
		var lo, hi int
		if n, _ := fmt.Sscanf(e.Name(), "run-%09d-%09d", &lo, &hi); n == 2 && e.Name() == runName(lo, hi) && lo < hi {
			rs = append(rs, runFile{path: filepath.Join(b.build, e.Name()), lo: lo, hi: hi})
		}
	}
	slices.SortFunc(rs, func(a, b runFile) int { return a.lo - b.lo })
	return rs, nil
}

// dropRunsFrom removes runs that do not continue the resumed prefix.
func (b *builder) dropRunsFrom(next int) {
	rs, _ := b.runs()
	for _, r := range rs {
		if r.lo >= next {
			_ = os.Remove(r.path)
		}
	}
}

// readRunDocs loads the document records of a run into b.docs.
func (b *builder) readRunDocs(r runFile) error {
	f, err := os.Open(r.path)
	if err != nil {
		return err
	}
	defer f.Close()
	hdr := make([]byte, 16+(r.hi-r.lo)*runDoc)
	if _, err := io.ReadFull(f, hdr); err != nil {
		return err
	}
	if string(hdr[:8]) != runMagic || int(binary.LittleEndian.Uint32(hdr[8:])) != r.lo ||
		int(binary.LittleEndian.Uint32(hdr[12:])) != r.hi || r.hi > len(b.docs) {
		return errCorrupt
	}
	want := 0
	for i := r.lo; i < r.hi; i++ {
		e := hdr[16+(i-r.lo)*runDoc:]
		d := &b.docs[i]
		d.size = int64(binary.LittleEndian.Uint64(e))
		d.mtime = int64(binary.LittleEndian.Uint64(e[8:]))
		d.flags = binary.LittleEndian.Uint32(e[16:])
		d.blocks = binary.LittleEndian.Uint32(e[20:])
		want += max(int(d.blocks), 1) - 1
	}
	var n [4]byte
	if _, err := io.ReadFull(f, n[:]); err != nil {
		return err
	}
	if int(binary.LittleEndian.Uint32(n[:])) != want {
		return errCorrupt
	}
	raw := make([]byte, 4*want)
	if _, err := io.ReadFull(f, raw); err != nil {
		return err
	}
	for i := r.lo; i < r.hi; i++ {
		d := &b.docs[i]
		d.starts = nil
		for range max(int(d.blocks), 1) - 1 {
			d.starts = append(d.starts, binary.LittleEndian.Uint32(raw))
			raw = raw[4:]
		}
	}
	return nil
}

// flushRun sorts the pairs gathered for documents [b.runLo, hi) and writes
// them as one run.
func (b *builder) flushRun(hi int) error {
	if hi == b.runLo {
		return nil
	}
	if cap(b.tmp) < len(b.pairs) {
		b.tmp = make([]uint64, len(b.pairs), cap(b.pairs))
	}
	radixSortByTri(b.pairs, b.tmp[:len(b.pairs)])
	a, err := atomicfile.Create(filepath.Join(b.build, runName(b.runLo, hi)), 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(a, 256<<10)
	out := append([]byte(runMagic), make([]byte, 8)...)
	binary.LittleEndian.PutUint32(out[8:], uint32(b.runLo))
	binary.LittleEndian.PutUint32(out[12:], uint32(hi))
	for i := b.runLo; i < hi; i++ {
		d := b.docs[i]
		out = binary.LittleEndian.AppendUint64(out, uint64(d.size))
		out = binary.LittleEndian.AppendUint64(out, uint64(d.mtime))
		out = binary.LittleEndian.AppendUint32(out, d.flags)
		out = binary.LittleEndian.AppendUint32(out, d.blocks)
	}
	nstarts := len(out)
	out = append(out, 0, 0, 0, 0)
	for _, d := range b.docs[b.runLo:hi] {
		for _, st := range d.starts {
			out = binary.LittleEndian.AppendUint32(out, st)
		}
	}
	binary.LittleEndian.PutUint32(out[nstarts:], uint32((len(out)-nstarts-4)/4))
	_, _ = w.Write(out)
	ps := b.pairs
	for len(ps) > 0 {
		tri := uint32(ps[0] >> pairTriShift)
		n := 1
		for n < len(ps) && uint32(ps[n]>>pairTriShift) == tri {
			n++
		}
		out = binary.LittleEndian.AppendUint32(out[:0], tri)
		out = binary.AppendUvarint(out, uint64(n))
		prev := uint32(0)
		for _, p := range ps[:n] {
			id := uint32(p) & maxDocs
			out = binary.AppendUvarint(out, uint64(id-prev))
			prev = id
		}
		for _, p := range ps[:n] {
			out = binary.LittleEndian.AppendUint16(out, uint16(p>>pairMaskShift))
		}
		_, _ = w.Write(out)
		ps = ps[n:]
	}
	_, _ = w.Write(binary.LittleEndian.AppendUint32(out[:0], runEnd))
	if err := w.Flush(); err != nil {
		a.Abort()
		return err
	}
	if err := a.Commit(); err != nil {
		return err
	}
	b.pairs = b.pairs[:0]
	b.runLo = hi
	if stopAfterRun != nil {
		stopAfterRun()
	}
	return nil
}

var stopAfterRun func() // tests set it to stop a build after a run

// A pair packs a trigram, its mask in one document, and the document.
const (
	pairTriShift  = 40
	pairMaskShift = 24
)

// radixSortByTri sorts pairs by their trigram (bits 40-63), keeping the
// order of equal keys, so each trigram's documents stay ascending. tmp is
// scratch of the same length.
func radixSortByTri(ps, tmp []uint64) {
	src, dst := ps, tmp
	for shift := uint(pairTriShift); shift < pairTriShift+24; shift += 12 {
		var count [1 << 12]int
		for _, p := range src {
			count[(p>>shift)&(1<<12-1)]++
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, p := range src {
			k := (p >> shift) & (1<<12 - 1)
			dst[count[k]] = p
			count[k]++
		}
		src, dst = dst, src
	}
	// Two passes: the result is back in ps.
}

// runReader walks the groups of one run in trigram order.
type runReader struct {
	r     *bufio.Reader
	f     *os.File
	tri   uint32
	ids   []uint32
	masks []uint16
	raw   []byte
	done  bool
}

func openRun(r runFile) (*runReader, error) {
	f, err := os.Open(r.path)
	if err != nil {
		return nil, err
	}
	rr := &runReader{f: f, r: bufio.NewReaderSize(f, 64<<10)}
	var n [4]byte
	if _, err := rr.r.Discard(16 + (r.hi-r.lo)*runDoc); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := io.ReadFull(rr.r, n[:]); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := rr.r.Discard(4 * int(binary.LittleEndian.Uint32(n[:]))); err != nil {
		f.Close()
		return nil, err
	}
	return rr, rr.next()
}

// next reads the next group, or sets done.
func (rr *runReader) next() error {
	var b [4]byte
	if _, err := io.ReadFull(rr.r, b[:]); err != nil {
		return fmt.Errorf("run %s: %w", rr.f.Name(), err)
	}
	rr.tri = binary.LittleEndian.Uint32(b[:])
	if rr.tri == runEnd {
		rr.done = true
		return nil
	}
	n, err := binary.ReadUvarint(rr.r)
	if err != nil || n > 1<<32 {
		return fmt.Errorf("run %s: %w", rr.f.Name(), errCorrupt)
	}
	rr.ids = rr.ids[:0]
	prev := uint32(0)
	for range n {
		d, err := binary.ReadUvarint(rr.r)
		if err != nil {
			return fmt.Errorf("run %s: %w", rr.f.Name(), errCorrupt)
		}
		prev += uint32(d)
		rr.ids = append(rr.ids, prev)
	}
	rr.raw = slices.Grow(rr.raw[:0], 2*int(n))[:2*n]
	if _, err := io.ReadFull(rr.r, rr.raw); err != nil {
		return fmt.Errorf("run %s: %w", rr.f.Name(), errCorrupt)
	}
	rr.masks = rr.masks[:0]
	for i := range int(n) {
		rr.masks = append(rr.masks, binary.LittleEndian.Uint16(rr.raw[2*i:]))
	}
	return nil
}

func (rr *runReader) close() { _ = rr.f.Close() }

// joinPaths is the paths section: the documents' paths concatenated.
func joinPaths(docs []docRec) string {
	var sb strings.Builder
	for _, d := range docs {
		sb.WriteString(d.rel)
	}
	return sb.String()
}
