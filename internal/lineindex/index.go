package lineindex

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sort"
	"sync"

	"github.com/toolrpc/toolrpc/limits"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// passBuffers recycles the pass's large read buffers between calls.
var passBuffers = sync.Pool{New: func() any {
	b := make([]byte, limits.LineIndexPassBufferBytes)
	return &b
}}

// scanReaders recycles Scan's readers of limits.ReadScanBufferBytes.
var scanReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, limits.ReadScanBufferBytes) }}

var (
	blockBytes = limits.LineIndexBlockBytes // tests shorten it
	markLines  = limits.LineIndexMarkLines  // tests shorten it
	markBytes  = limits.LineIndexMarkBytes  // tests shorten it
	maxMarks   = limits.LineIndexMaxMarks   // tests shorten it
)

// Mark is a line start: line Line (1-based) begins at byte offset Off.
type Mark struct {
	Line int64
	Off  int64
}

// Index is what one pass learnt about one version of a file. It is immutable
// and safe for concurrent use.
type Index struct {
	// Size is the number of bytes the pass read.
	Size int64
	// Lines is the number of lines of those bytes (SPEC §2).
	Lines int64
	// CRC is the CRC-32C (Castagnoli) of those bytes.
	CRC uint32

	form  Form
	marks []Mark // marks[0] is {1, 0}; strictly increasing in Line and Off
}

// Marks returns the number of marks the index holds.
func (ix *Index) Marks() int { return len(ix.marks) }

// cost is the approximate memory an index holds, for the cache's bound.
func (ix *Index) cost() int { return 16*cap(ix.marks) + 64 }

// Nearest returns the last mark at or before line.
func (ix *Index) Nearest(line int64) Mark {
	i := sort.Search(len(ix.marks), func(k int) bool { return ix.marks[k].Line > line })
	if i == 0 {
		return ix.marks[0]
	}
	return ix.marks[i-1]
}

// builder is the state of one pass.
type builder struct {
	crc       uint32
	off       int64 // bytes seen
	newlines  int64
	last      byte
	marks     []Mark
	markLines int64
	markBytes int64
	form      Form
	lastEnd   int64 // offset after the last newline unit (UTF-16 forms)
}

func newBuilder(form Form) *builder {
	return &builder{
		form:      form,
		marks:     []Mark{{Line: 1, Off: 0}},
		markLines: int64(markLines),
		markBytes: int64(markBytes),
	}
}

// feed consumes the next bytes of the file.
func (b *builder) feed(p []byte) {
	if b.form != Bytes {
		b.feedWide(p)
		return
	}
	for len(p) > 0 {
		blk := p[:min(len(p), blockBytes)]
		p = p[len(blk):]
		b.crc = crc32Update(b.crc, blk)
		if c := bytes.Count(blk, []byte{'\n'}); c > 0 {
			b.newlines += int64(c)
			m := Mark{Line: b.newlines + 1, Off: b.off + int64(bytes.LastIndexByte(blk, '\n')) + 1}
			last := b.marks[len(b.marks)-1]
			if m.Line-last.Line >= b.markLines || m.Off-last.Off >= b.markBytes {
				b.addMark(m)
			}
		}
		b.off += int64(len(blk))
		b.last = blk[len(blk)-1]
	}
}

func (b *builder) addMark(m Mark) {
	b.marks = append(b.marks, m)
	if len(b.marks) <= maxMarks {
		return
	}
	// Keep every other mark (always the first) and space future marks twice as far.
	kept := b.marks[:0]
	for i := 0; i < len(b.marks); i += 2 {
		kept = append(kept, b.marks[i])
	}
	b.marks = kept
	b.markLines *= 2
	b.markBytes *= 2
}

func (b *builder) finish() *Index {
	lines := b.newlines
	if b.form == Bytes && b.off > 0 && b.last != '\n' || b.form != Bytes && b.off > b.lastEnd {
		lines++
	}
	marks := b.marks
	if n := len(marks); n > 1 && marks[n-1].Off >= b.off {
		marks = marks[:n-1] // a mark at the very end starts no line
	}
	return &Index{Size: b.off, Lines: lines, CRC: b.crc, form: b.form, marks: append([]Mark(nil), marks...)}
}

func crc32Update(crc uint32, p []byte) uint32 { return crc32.Update(crc, castagnoli, p) }

// Build reads r to its end in one pass and returns its index. It checks ctx
// between reads.
func Build(ctx context.Context, r io.Reader) (*Index, error) {
	return BuildForm(ctx, r, Bytes)
}

// BuildForm is Build for lines that end as form says.
func BuildForm(ctx context.Context, r io.Reader, form Form) (*Index, error) {
	b := newBuilder(form)
	var buf []byte
	if sr, ok := r.(interface{ Size() int64 }); ok && sr.Size() < limits.LineIndexPassBufferBytes {
		buf = make([]byte, sr.Size()+1) // small files get small buffers
	} else {
		pb := passBuffers.Get().(*[]byte)
		defer passBuffers.Put(pb)
		buf = *pb
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("index lines: %w", err)
		}
		n, err := io.ReadFull(r, buf)
		b.feed(buf[:n])
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return b.finish(), nil
		}
		if err != nil {
			return nil, fmt.Errorf("index lines: %w", err)
		}
	}
}

// LineFunc receives one line of a scan: its number, its content without the
// line ending (at most the scan's prefix bytes of it), and whether the line
// was longer than that prefix. line is valid only during the call. Returning
// false stops the scan.
type LineFunc func(no int64, line []byte, long bool) bool

// Scan reads the lines of f (the file ix indexes) from line from onwards,
// starting at the nearest mark, and passes each to fn until fn returns false
// or the indexed bytes end. Lines longer than prefix bytes are passed as their
// first prefix bytes with long set; the rest of such a line is skipped without
// being held in memory. A from past the last line calls fn never.
func (ix *Index) Scan(ctx context.Context, f io.ReaderAt, from int64, prefix int, fn LineFunc) error {
	if from < 1 {
		from = 1
	}
	if from > ix.Lines {
		return nil
	}
	m := ix.Nearest(from)
	if ix.form != Bytes {
		return ix.scanWide(ctx, f, m, from, prefix, fn)
	}
	sr := io.NewSectionReader(f, m.Off, ix.Size-m.Off)
	var br *bufio.Reader
	if size := max(limits.ReadScanBufferBytes, prefix+1); sr.Size() < int64(size) {
		// Holds every remaining line whole, so none reads as long.
		br = bufio.NewReaderSize(sr, int(sr.Size())+1)
	} else if size == limits.ReadScanBufferBytes {
		br = scanReaders.Get().(*bufio.Reader)
		br.Reset(sr)
		defer func() { br.Reset(nil); scanReaders.Put(br) }()
	} else {
		br = bufio.NewReaderSize(sr, size)
	}
	var long []byte
	for no := m.Line; ; no++ {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("scan lines: %w", err)
		}
		sl, err := br.ReadSlice('\n')
		if no < from {
			if err = skipRest(ctx, br, err); err != nil {
				return noEOF(err)
			}
			continue
		}
		var line []byte
		isLong := false
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			// The buffer is larger than prefix (or than the rest of the file,
			// when it cannot fill up), so the line is long.
			long = append(long[:0], sl[:prefix]...)
			line, isLong = long, true
			err = skipRest(ctx, br, err)
			if err != nil && !errors.Is(err, io.EOF) {
				return fmt.Errorf("scan lines: %w", err)
			}
		case err == nil:
			line = trimEnding(sl)
		case errors.Is(err, io.EOF):
			if len(sl) == 0 {
				return nil
			}
			line = sl
		default:
			return fmt.Errorf("scan lines: %w", err)
		}
		if len(line) > prefix {
			line, isLong = line[:prefix], true
		}
		if !fn(no, line, isLong) || err != nil {
			return nil
		}
	}
}

// skipRest consumes the rest of a line whose first ReadSlice returned err.
// It returns nil once the line's "\n" is consumed, io.EOF at the end.
func skipRest(ctx context.Context, br *bufio.Reader, err error) error {
	for errors.Is(err, bufio.ErrBufferFull) {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		_, err = br.ReadSlice('\n')
	}
	return err
}

func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return fmt.Errorf("scan lines: %w", err)
}

// trimEnding drops a line's "\n" or "\r\n".
func trimEnding(sl []byte) []byte {
	sl = sl[:len(sl)-1]
	if n := len(sl); n > 0 && sl[n-1] == '\r' {
		sl = sl[:n-1]
	}
	return sl
}
