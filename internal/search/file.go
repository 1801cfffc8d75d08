package search

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"hash"

	"github.com/toolrpc/toolrpc/internal/cut"
	"github.com/toolrpc/toolrpc/internal/sourceset"
	"github.com/toolrpc/toolrpc/internal/textenc"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/walk"
)

// skipUnmatched lets a file read whole in its first read, whose bytes do
// not hold the pattern's ASCII literal, go unsniffed (Matcher.absentFrom);
// tests turn it off to compare against the sniff-first answer.
var skipUnmatched = true

// worker searches one file at a time with a reused buffer.
type worker struct {
	q          *Query
	maxMatches int
	firstRead  int // the most read of a file before searching it, when less than limits.SearchFirstReadBytes (see MatchSpans)
	buf        []byte
	enc        *textenc.Encoding // the current file's, when its text is decoded (SPEC §4.1)
	text       []byte            // the decoded chunk
}

// file searches one file; unreadable and binary files yield an empty result.
func (g *worker) file(ctx context.Context, f walk.File) fileResult {
	return g.fileAt(ctx, f, -1)
}

// fileAt is file of a file the walk may have opened: fd ≥ 0 is open on it
// (walk.Options.Open; the walk closes it), else the file is opened by its
// path.
func (g *worker) fileAt(ctx context.Context, f walk.File, open int) fileResult {
	if text, ok := g.q.Overlay[f.Abs]; ok {
		return g.overlayText(ctx, text)
	}
	// A descriptor the walk opened is never one of a file binary by its
	// name (walk.Options.Open): its name was judged there.
	if ctx.Err() != nil || (open < 0 && walk.IsBinaryName(f.Abs)) {
		return fileResult{}
	}
	// Raw syscalls: os.File's poller registration, Stat and EOF probe read
	// cost as much as the search on small files. O_NONBLOCK: should the
	// path have become a FIFO since the walk, nothing blocks.
	fd, ok := rawFD(open)
	if !ok {
		if fd, ok = openRaw(f.Abs); !ok {
			return fileResult{}
		}
		defer fd.close()
	}
	if g.q.Opened != nil && !g.q.Opened(fd.num(), f.Size) {
		return fileResult{}
	}
	rd := reader{fd: fd, left: f.Size}
	if f.Size == 0 { // /proc files report size 0 yet hold text: read to EOF (SPEC §4)
		rd.left = limits.UnsizedFileMaxBytes
	}
	n, eof, err := g.readFirst(&rd)
	if err != nil {
		return fileResult{}
	}
	if eof && skipUnmatched && g.q.Matcher.absentFrom(g.buf[:n]) && textenc.ByBOM(g.buf[:n]) == nil {
		// The whole file is read and cannot match, binary or text, in
		// whatever encoding the sniff would name: the sniff, most of the
		// cost of a small file that does not match, is not spent.
		return fileResult{}
	}
	enc, binary, _ := walk.SniffText(g.buf[:n], eof)
	if binary {
		return fileResult{}
	}
	if enc.Transcoded() || enc.BOM() != nil {
		g.enc = enc
		defer func() { g.enc = nil }()
	}
	res := g.search(ctx, &rd, g.buf[:n], eof)
	res.encoding = enc.Label()
	return res
}

// fileSpans searches the parts spans of file f: ascending byte ranges
// [start, end), each from a line start to a line end or the file's end,
// outside which no line holds a match (MatchSpans). A count or
// filesWithMatches grep, which neither numbers lines nor tags the file,
// reads only them, as text that needs no sniff and no decoding (a UTF-8
// BOM at the file's start is dropped, as the sniff's encoding drops it).
// nil spans, and other greps, read the whole file.
func (g *worker) fileSpans(ctx context.Context, f walk.File, spans [][2]int64) fileResult {
	if _, ok := g.q.Overlay[f.Abs]; spans == nil || ok || g.q.Mode == Content {
		return g.file(ctx, f)
	}
	if ctx.Err() != nil || walk.IsBinaryName(f.Abs) {
		return fileResult{}
	}
	fd, ok := openRaw(f.Abs)
	if !ok {
		return fileResult{}
	}
	defer fd.close()
	if g.q.Opened != nil && !g.q.Opened(fd.num(), f.Size) {
		return fileResult{}
	}
	var res fileResult
	for _, sp := range spans {
		start, end := sp[0], min(sp[1], f.Size)
		if start >= end {
			continue
		}
		if start > 0 && fd.seek(start) != nil { // a span at 0 is the first: the file was just opened
			return fileResult{}
		}
		rd := reader{fd: fd, left: end - start}
		n, eof, err := g.readFirst(&rd)
		if err != nil {
			return fileResult{}
		}
		data := g.buf[:n]
		if bom := textenc.UTF8BOM.BOM(); start == 0 && bytes.HasPrefix(data, bom) {
			data = g.buf[:copy(g.buf[:cap(g.buf)], data[len(bom):])]
		}
		res.count += g.search(ctx, &rd, data, eof).count
		if res.count > 0 && g.q.Mode == FilesWithMatches {
			break
		}
	}
	return res
}

// readFirst makes the first read of what rd reads into g.buf (sized for
// it on first use): up to g.firstRead bytes, or
// limits.SearchFirstReadBytes.
func (g *worker) readFirst(rd *reader) (n int, eof bool, err error) {
	if cap(g.buf) < limits.SniffBytes {
		g.buf = make([]byte, 0, max(limits.SniffBytes, min(int(rd.left)+1, g.q.ChunkBytes)))
	}
	return rd.fill(g.buf[:min(cap(g.buf), cmp.Or(g.firstRead, limits.SearchFirstReadBytes))])
}

// search searches a text file in chunks of whole lines, data being its
// first bytes (all of it when eof).
func (g *worker) search(ctx context.Context, rd *reader, data []byte, eof bool) fileResult {
	var res fileResult
	var err error
	var h hash.Hash32
	if g.q.Mode == Content {
		h = sourceset.NewHash()
	}
	base := 0              // lines before data (Content: no other mode numbers lines)
	done := false          // enough matches: only the tag still needs the rest
	first := true          // data starts at the file's start
	want := g.q.ChunkBytes // bytes to gather before searching
	grow := g.q.Mode == FilesWithMatches
	if grow {
		// One match answers the file: search the first read's whole lines
		// before reading on, then twice as much each time, as many files
		// that match do so early (of a sample of 400 of the 948 Linux files
		// matching \w+_RESUME, 85% match in their first 64 KB; the large
		// ones mostly match late, so the bytes read fell only 57 -> 52 MB).
		want = len(data)
	}
	for {
		if !eof && len(data) < want {
			if data, eof, err = g.gather(rd, data, want); err != nil {
				return fileResult{}
			}
		}
		end := len(data)
		if !eof {
			i := g.lastLineEnd(data)
			if i < 0 {
				// One line longer than a chunk: gather until it ends.
				want = 2 * len(data)
				continue
			}
			end = i + 1
		}
		if grow {
			want = min(2*max(want, len(data)), g.q.ChunkBytes)
		} else {
			want = g.q.ChunkBytes
		}
		chunk := data[:end]
		if !done {
			text, exact := g.decode(chunk, first)
			from := len(res.lines)
			done = g.chunk(text, base, &res)
			if !exact {
				for i := from; i < len(res.lines); i++ {
					res.lines[i].whole = false // not editable: it would not encode back
				}
			}
			if done && h == nil {
				return res
			}
		}
		// The tag covers the whole file, so every chunk of a file read in
		// several is hashed; a file read in one is hashed only if it is
		// shown (most files of a content search match nothing).
		if h != nil && (!first || !eof || len(res.lines) > 0) {
			h.Write(chunk)
		}
		first = false
		if eof {
			break
		}
		if ctx.Err() != nil {
			return fileResult{}
		}
		if g.q.Mode == Content { // only content results number their lines
			base += g.lines(chunk)
		}
		rest := copy(g.buf[:cap(g.buf)], data[end:])
		data = g.buf[:rest]
	}
	if h != nil && len(res.lines) > 0 {
		res.tag = sourceset.TagSum(h.Sum32())
	}
	return res
}

// gather reads more of the file after data (which starts g.buf) until it
// holds want bytes or the file ends, and no more than want: a buffer grown
// by an earlier, larger file does not make a filesWithMatches grep read
// past the doubling it asked for.
func (g *worker) gather(rd *reader, data []byte, want int) (_ []byte, eof bool, err error) {
	for !eof && len(data) < want {
		if cap(g.buf) == len(data) {
			// Grow towards what this file still needs, not a whole
			// chunk: a fresh 8 MiB per worker costs more to fault in
			// than most files take to search.
			need := len(data) + int(min(rd.left, int64(want)))
			nb := make([]byte, len(data), max(2*cap(g.buf), min(need, want)))
			copy(nb, data)
			g.buf = nb
		}
		var m int
		m, eof, err = rd.fill(g.buf[len(data):min(cap(g.buf), want)])
		data = g.buf[:len(data)+m]
		if err != nil {
			return data, eof, err
		}
	}
	return data, eof, nil
}

// reader reads a file up to the size the walk saw: a file that grows
// while it is searched is searched as it was, and no read is spent on EOF.
type reader struct {
	fd   rawFile
	left int64
}

// fill reads into p until it is full or the file ends; eof reports the end.
func (r *reader) fill(p []byte) (n int, eof bool, err error) {
	for n < len(p) && r.left > 0 {
		want := min(int64(len(p)-n), r.left)
		m, err := r.fd.read(p[n : n+int(want)])
		if err != nil {
			return n, true, fmt.Errorf("read: %w", err)
		}
		if m == 0 {
			r.left = 0
			break
		}
		n += m
		r.left -= int64(m)
	}
	return n, r.left == 0, nil
}

// decode returns the text of chunk (whole lines of the current file; first:
// at its start) to match: the chunk itself, or its decoded text without a
// BOM; exact is false when that text would not encode back to chunk.
func (g *worker) decode(chunk []byte, first bool) (text []byte, exact bool) {
	if g.enc == nil {
		return chunk, true
	}
	if first {
		chunk = bytes.TrimPrefix(chunk, g.enc.BOM())
	}
	if !g.enc.Transcoded() {
		return chunk, true
	}
	if g.q.Mode != Content { // no line is shown, so none needs to be editable
		g.text = g.enc.AppendText(g.text[:0], chunk)
		return g.text, true
	}
	s, exact := g.enc.Decode(chunk)
	g.text = append(g.text[:0], s...)
	return g.text, exact
}

// lastLineEnd returns the index of the last line ending's "\n" byte in
// data (which starts at a line start), or -1.
func (g *worker) lastLineEnd(data []byte) int {
	if g.enc.Unit() == 1 {
		return lastNewline(data)
	}
	be := g.enc.BigEndian()
	for i := lastNewline(data); i >= 0; i = lastNewline(data[:i]) {
		if !be && i%2 == 0 && i+1 < len(data) && data[i+1] == 0 {
			return i + 1 // the unit's last byte
		}
		if be && i%2 == 1 && data[i-1] == 0 {
			return i
		}
	}
	return -1
}

// lines counts the lines of a chunk of whole lines of the current file.
func (g *worker) lines(chunk []byte) int {
	if g.enc.Unit() == 1 {
		return cut.CountLines(chunk)
	}
	n := 0
	be := g.enc.BigEndian()
	for i := 0; i+1 < len(chunk); i += 2 {
		if !be && chunk[i] == '\n' && chunk[i+1] == 0 || be && chunk[i] == 0 && chunk[i+1] == '\n' {
			n++
		}
	}
	if len(chunk) > 0 && !g.endsLine(chunk) {
		n++
	}
	return n
}

func (g *worker) endsLine(chunk []byte) bool {
	n := len(chunk)
	if n < 2 {
		return false
	}
	if g.enc.BigEndian() {
		return chunk[n-2] == 0 && chunk[n-1] == '\n'
	}
	return chunk[n-2] == '\n' && chunk[n-1] == 0
}

func lastNewline(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '\n' {
			return i
		}
	}
	return -1
}

// chunk searches one chunk (whole lines) whose first line is number base+1,
// adding to res; it returns true when the file needs no more searching.
func (g *worker) chunk(buf []byte, base int, res *fileResult) bool {
	q := g.q
	done := false
	last := 0 // last line number (within the chunk) added in content mode
	q.Matcher.MatchLines(buf, func(n, s, e int) bool {
		res.count++
		switch q.Mode {
		case FilesWithMatches:
			done = true
			return false
		case Count:
			return true
		}
		if q.Before > 0 && last < n-1 {
			from := max(last+1, n-q.Before)
			ls := s
			var spans [][2]int
			for k := n - 1; k >= from; k-- {
				le := ls - 1
				ls = lastNewlineBefore(buf, le) + 1
				spans = append(spans, [2]int{ls, le})
			}
			for k := len(spans) - 1; k >= 0; k-- {
				res.lines = append(res.lines, makeLine(base+n-1-k, buf[spans[k][0]:spans[k][1]], true, false))
			}
		}
		res.lines = append(res.lines, makeLine(base+n, buf[s:e], false, false))
		last = n
		if res.count >= g.maxMatches {
			done = true
		}
		// After-context: lines following this match up to the next match are
		// added when the next match (or the end) is known, below.
		if q.After > 0 {
			pos := e + 1
			for k := 1; k <= q.After && pos < len(buf); k++ {
				le := indexNewline(buf, pos)
				if g.nextIsMatch(buf, pos, le) {
					break
				}
				res.lines = append(res.lines, makeLine(base+n+k, buf[pos:le], true, true))
				last = n + k
				pos = le + 1
			}
		}
		return !done
	})
	return done
}

// nextIsMatch reports whether the line buf[s:e] matches on its own, so that
// after-context stops before it and the scan reports it as a match.
func (g *worker) nextIsMatch(buf []byte, s, e int) bool {
	found := false
	g.q.Matcher.MatchLines(buf[s:e], func(int, int, int) bool { found = true; return false })
	return found
}

func lastNewlineBefore(b []byte, end int) int {
	for i := end - 1; i >= 0; i-- {
		if b[i] == '\n' {
			return i
		}
	}
	return -1
}

func indexNewline(b []byte, from int) int {
	for i := from; i < len(b); i++ {
		if b[i] == '\n' {
			return i
		}
	}
	return len(b)
}

// makeLine clips one line (CR of a CRLF ending dropped) for display.
func makeLine(n int, b []byte, context, after bool) line {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	text, clipped, lossy := cut.ClipLine(b)
	return line{n: n, text: text, context: context, after: after, whole: !clipped && !lossy}
}
