package methods

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/toolrpc/toolrpc/atomicfile"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/sourceset"
	"github.com/toolrpc/toolrpc/walk"
)

// editBufBytes is the read and write buffer of the edit passes.
var editBufBytes = 256 * 1024 // tests shorten it to split lines across reads

// editCheckEvery is how many lines an edit pass handles between checks of
// its context for cancellation.
var editCheckEvery = 4096 // tests shorten it

func init() {
	register(Method{
		Name: "tools/edit",
		Tool: true,
		Description: fmt.Sprintf("Edits a text file by the line numbers of a Read or Grep result. "+
			"Params: path; tag, the 4-hex tag that result gave (if the file changed since, the edit fails with STALE_TAG and the current tag); "+
			"ops: [{op: \"replace\"|\"insert\"|\"delete\", start, end?, lines?}], line numbers of that version: "+
			"replace swaps lines start..end (end defaults to start) for lines, delete removes start..end, "+
			"insert puts lines after line start (0 = before the first line). "+
			"Every line an op touches must have been shown whole by a Read or Grep content result; "+
			"lines clipped at %d characters are not editable (LINE_NOT_VISIBLE names the lines). "+
			"Ops may not overlap; at most %d ops and %d bytes (%d KB) of ops per call. "+
			"Applied all or nothing and atomically, keeping the file's line endings, final newline and mode; "+
			"workspace and scratch files only (external roots are read-only). "+
			"Returns the new tag and each changed region with %d lines of context in Read's format "+
			"(at most %d lines / %d KB); those lines can be edited again without a new Read.",
			limits.MaxLineChars, limits.EditMaxOps, limits.EditMaxBytes, limits.EditMaxBytes/limits.KB,
			limits.EditContextLines, limits.SearchBudgetLines, limits.SearchBudgetBytes/limits.KB),
		InputSchema: json.RawMessage(`{"type":"object","required":["path","tag","ops"],"properties":{` +
			`"path":{"type":"string"},"tag":{"type":"string","pattern":"^[0-9a-f]{4}$"},` +
			`"ops":{"type":"array","minItems":1,"maxItems":` + strconv.Itoa(limits.EditMaxOps) + `,"items":{"type":"object","required":["op","start"],"properties":{` +
			`"op":{"enum":["replace","insert","delete"]},"start":{"type":"integer","minimum":0},"end":{"type":"integer","minimum":1},` +
			`"lines":{"type":"array","items":{"type":"string"}}}}}}}`),
		Call: editCall,
	})
}

type editParams struct {
	Path string          `json:"path"`
	Tag  string          `json:"tag"`
	Ops  json.RawMessage `json:"ops"`
}

type editOp struct {
	Op    string    `json:"op"`
	Start *int      `json:"start"`
	End   *int      `json:"end"`
	Lines *[]string `json:"lines"`
}

// editResult is the tools/edit result (SPEC §8).
type editResult struct {
	Path         string `json:"path"`
	Tag          string `json:"tag"`
	Content      string `json:"content"`
	TotalLines   int    `json:"totalLines"`
	ClippedLines []int  `json:"clippedLines,omitempty"`
	Notice       string `json:"notice,omitempty"`
}

// editHunk is one op in removal/insertion form: old lines
// oldStart..oldStart+oldCount-1 are removed and lines go where they were
// (an insert after line s is the hunk {s+1, 0, lines}).
type editHunk struct {
	oldStart, oldCount int
	lines              []string
	op                 int // index in the request, for messages
	touchFrom, touchTo int // lines the op touches (touchFrom > touchTo: none)
}

// editParseOps validates the ops of a request, except line ranges against
// the file, and returns them as hunks ordered by position.
func editParseOps(raw json.RawMessage) ([]editHunk, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, rpc.Errorf(rpc.InvalidArgument, "edit: ops are required")
	}
	if len(raw) > limits.EditMaxBytes {
		return nil, rpc.Errorf(rpc.InvalidArgument, "edit: ops are %d bytes, more than the limit of %d bytes (%d KB); split the edit",
			len(raw), limits.EditMaxBytes, limits.EditMaxBytes/limits.KB)
	}
	var ops []editOp
	// Unknown op fields are refused: an ignored "count" would edit the wrong lines.
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ops); err != nil {
		return nil, rpc.Errorf(rpc.InvalidArgument, "edit: bad ops: %v", err)
	}
	if len(ops) == 0 {
		return nil, rpc.Errorf(rpc.InvalidArgument, "edit: ops must not be empty")
	}
	if len(ops) > limits.EditMaxOps {
		return nil, rpc.Errorf(rpc.InvalidArgument, "edit: %d ops, more than the limit of %d; split the edit", len(ops), limits.EditMaxOps)
	}
	hunks := make([]editHunk, 0, len(ops))
	inserts := map[int]int{}
	for i, o := range ops {
		if o.Start == nil {
			return nil, rpc.Errorf(rpc.InvalidArgument, "edit: ops[%d]: start is required", i)
		}
		s := *o.Start
		var lines []string
		if o.Lines != nil {
			lines = *o.Lines
		}
		for j, l := range lines {
			if strings.ContainsAny(l, "\r\n") {
				return nil, rpc.Errorf(rpc.InvalidArgument, "edit: ops[%d].lines[%d] holds a line break; give one line per element", i, j)
			}
		}
		h := editHunk{op: i, lines: lines}
		switch o.Op {
		case "replace", "delete":
			e := s
			if o.End != nil {
				e = *o.End
			}
			if s < 1 || e < s {
				return nil, rpc.Errorf(rpc.InvalidArgument, "edit: ops[%d]: %s needs 1 <= start <= end, got start=%d end=%d", i, o.Op, s, e)
			}
			if o.Op == "delete" && len(lines) > 0 {
				return nil, rpc.Errorf(rpc.InvalidArgument, "edit: ops[%d]: delete takes no lines", i)
			}
			if o.Op == "replace" && o.Lines == nil {
				return nil, rpc.Errorf(rpc.InvalidArgument, "edit: ops[%d]: replace needs lines ([] deletes)", i)
			}
			h.oldStart, h.oldCount = s, e-s+1
			h.touchFrom, h.touchTo = s, e
		case "insert":
			if s < 0 {
				return nil, rpc.Errorf(rpc.InvalidArgument, "edit: ops[%d]: insert needs start >= 0, got %d", i, s)
			}
			if o.End != nil {
				return nil, rpc.Errorf(rpc.InvalidArgument, "edit: ops[%d]: insert takes no end", i)
			}
			if len(lines) == 0 {
				return nil, rpc.Errorf(rpc.InvalidArgument, "edit: ops[%d]: insert needs at least one line", i)
			}
			if prev, dup := inserts[s]; dup {
				return nil, rpc.Errorf(rpc.InvalidArgument, "edit: ops[%d] and ops[%d] both insert after line %d; merge them", prev, i, s)
			}
			inserts[s] = i
			h.oldStart, h.oldCount = s+1, 0
			h.touchFrom, h.touchTo = s, s
			if s == 0 {
				h.touchFrom = 1 // touches nothing
			}
		default:
			return nil, rpc.Errorf(rpc.InvalidArgument, "edit: ops[%d]: op %q is not replace, insert or delete", i, o.Op)
		}
		hunks = append(hunks, h)
	}
	// No line touched twice.
	touched := make([]editHunk, 0, len(hunks))
	for _, h := range hunks {
		if h.touchFrom <= h.touchTo {
			touched = append(touched, h)
		}
	}
	sort.Slice(touched, func(a, b int) bool { return touched[a].touchFrom < touched[b].touchFrom })
	for k := 1; k < len(touched); k++ {
		if a, b := touched[k-1], touched[k]; b.touchFrom <= a.touchTo {
			return nil, rpc.Errorf(rpc.InvalidArgument, "edit: ops[%d] and ops[%d] overlap at line %d", a.op, b.op, b.touchFrom)
		}
	}
	sort.Slice(hunks, func(a, b int) bool {
		if hunks[a].oldStart != hunks[b].oldStart {
			return hunks[a].oldStart < hunks[b].oldStart
		}
		return hunks[a].oldCount < hunks[b].oldCount // an insert goes before a replace at its position
	})
	return hunks, nil
}

// editStats is what the first pass learns about a file.
type editStats struct {
	size         int64
	sum          uint32 // CRC-32C of the whole file
	lines        int
	crlf, lf     int  // lines ending in \r\n, in a bare \n
	finalNewline bool // the last line has an ending (true for an empty file)
}

// ending returns the line ending new lines get: the file's majority.
func (st editStats) ending() string {
	if st.crlf > st.lf {
		return "\r\n"
	}
	return "\n"
}

// editScan reads r to its end and returns its stats.
func editScan(ctx context.Context, r io.Reader) (editStats, error) {
	h := sourceset.NewHash()
	buf := make([]byte, editBufBytes)
	var st editStats
	var prev, last byte
	chunks := 0
	for {
		n, err := r.Read(buf)
		if n > 0 {
			b := buf[:n]
			h.Write(b)
			st.size += int64(n)
			for i := bytes.IndexByte(b, '\n'); i >= 0; {
				p := prev
				if i > 0 {
					p = b[i-1]
				}
				if p == '\r' {
					st.crlf++
				} else {
					st.lf++
				}
				j := bytes.IndexByte(b[i+1:], '\n')
				if j < 0 {
					break
				}
				i += 1 + j
			}
			prev, last = b[n-1], b[n-1]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return editStats{}, err
		}
		if chunks++; chunks%64 == 0 && ctx.Err() != nil {
			return editStats{}, ctx.Err()
		}
	}
	st.sum = h.Sum32()
	st.lines = st.crlf + st.lf
	st.finalNewline = st.size == 0 || last == '\n'
	if !st.finalNewline {
		st.lines++
	}
	return st, nil
}

// editLineReader yields the lines of a file with their endings, hashing
// every byte it reads, without holding a whole line in memory.
type editLineReader struct {
	br *bufio.Reader
	h  hash.Hash32
	n  int64
}

// next reads one line, passing its text (without ending) to text in pieces
// that are valid only during the call, and returns its ending: "\n", "\r\n",
// or "" for a last line without one. ok is false at the end of the file.
func (lr *editLineReader) next(text func([]byte)) (ending string, ok bool, err error) {
	carryCR, got := false, false
	for {
		b, err := lr.br.ReadSlice('\n')
		if len(b) > 0 {
			lr.h.Write(b)
			lr.n += int64(len(b))
			got = true
		}
		switch {
		case err == nil:
			body := b[:len(b)-1]
			if len(body) == 0 && carryCR {
				return "\r\n", true, nil
			}
			if carryCR {
				text([]byte{'\r'})
			}
			if len(body) > 0 && body[len(body)-1] == '\r' {
				text(body[:len(body)-1])
				return "\r\n", true, nil
			}
			text(body)
			return "\n", true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			if carryCR {
				text([]byte{'\r'})
			}
			carryCR = b[len(b)-1] == '\r'
			if carryCR {
				b = b[:len(b)-1]
			}
			text(b)
		case errors.Is(err, io.EOF):
			if carryCR {
				text([]byte{'\r'})
			}
			text(b)
			return "", got, nil
		default:
			return "", false, err
		}
	}
}

// editView collects the lines of the new version an Edit result shows.
type editView struct {
	show    []sourceset.Span // new line numbers to show, ascending, disjoint
	i       int
	content strings.Builder
	lines   int
	whole   []int // shown whole: join the new version's source set
	clipped []int
	stopped int // first line to show that the budget left out (0: none)
	cur     []byte
	curOver bool
}

// editLineCap is how many bytes of a line are kept for display: a line longer
// than that has more than MaxLineChars characters and is clipped anyway.
const editLineCap = 4*limits.MaxLineChars + 4

// wants reports whether new line n is shown.
func (v *editView) wants(n int) bool {
	for v.i < len(v.show) && v.show[v.i].To < n {
		v.i++
	}
	return v.stopped == 0 && v.i < len(v.show) && v.show[v.i].From <= n
}

func (v *editView) begin() { v.cur, v.curOver = v.cur[:0], false }

func (v *editView) piece(b []byte) {
	room := editLineCap - len(v.cur)
	if len(b) > room {
		b, v.curOver = b[:room], true
	}
	v.cur = append(v.cur, b...)
}

// add appends new line n, whose text is v.cur, to the content.
func (v *editView) add(n int) {
	text, whole := editDisplay(v.cur, v.curOver)
	entry := strconv.Itoa(n) + ":" + text + "\n"
	if v.lines+1 > limits.SearchBudgetLines || v.content.Len()+len(entry) > limits.SearchBudgetBytes {
		v.stopped = n
		return
	}
	v.content.WriteString(entry)
	v.lines++
	if whole {
		v.whole = append(v.whole, n)
	} else {
		v.clipped = append(v.clipped, n)
	}
}

// editDisplay renders a line as Read shows it (limits.ClipLine); a clipped
// or lossily decoded line, or one cut by editLineCap (over), is not whole.
func editDisplay(b []byte, over bool) (string, bool) {
	text, clipped, lossy := limits.ClipLine(b)
	return text, !over && !clipped && !lossy
}

// errEditChanged reports a file that ended before the line count its first
// pass found: it changed between the passes.
var errEditChanged = errors.New("the file changed while it was being edited")

// editApplied is what the second pass produced.
type editApplied struct {
	readBytes int64
	readSum   uint32 // CRC-32C of the old file as the second pass read it
	newSum    uint32
	newLines  int
}

// editApply streams the old file r to w with hunks applied (line numbers
// already checked against st), feeding the view the lines it shows.
func editApply(ctx context.Context, r io.Reader, w io.Writer, st editStats, hunks []editHunk, v *editView) (editApplied, error) {
	lr := &editLineReader{br: bufio.NewReaderSize(r, editBufBytes), h: sourceset.NewHash()}
	out := sourceset.NewHash()
	bw := bufio.NewWriterSize(io.MultiWriter(w, out), editBufBytes)
	nl := st.ending()
	pending, started := "", false // the ending of the last line written, held until we know it is not the last
	newN, oldN := 0, 0
	var werr error
	write := func(b []byte) {
		if werr == nil {
			_, werr = bw.Write(b)
		}
	}
	writeString := func(s string) {
		if werr == nil {
			_, werr = bw.WriteString(s)
		}
	}
	curLen := 0 // text bytes of the current line
	text := func(b []byte) {
		curLen += len(b)
		write(b)
	}
	startLine := func() {
		if started {
			if pending == "" {
				pending = nl // the old last line is no longer last
			}
			writeString(pending)
		}
		started = true
		newN++
		curLen = 0
	}
	// copyOld copies (keep) or skips old lines up to and including line upto
	// (upto < 0: to the end of the file).
	copyOld := func(upto int, keep bool) error {
		for upto < 0 || oldN < upto {
			if oldN%editCheckEvery == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			if _, err := lr.br.Peek(1); err != nil {
				if !errors.Is(err, io.EOF) {
					return err
				}
				if upto >= 0 {
					return errEditChanged
				}
				return nil
			}
			show := false
			if keep {
				startLine()
				if show = v != nil && v.wants(newN); show {
					v.begin()
				}
			}
			ending, _, err := lr.next(func(b []byte) {
				if keep {
					text(b)
					if show {
						v.piece(b)
					}
				}
			})
			if err != nil {
				return err
			}
			oldN++
			if keep {
				pending = ending
				if show {
					v.add(newN)
				}
			}
		}
		return nil
	}
	for _, h := range hunks {
		if err := copyOld(h.oldStart-1, true); err != nil {
			return editApplied{}, err
		}
		if err := copyOld(h.oldStart+h.oldCount-1, false); err != nil {
			return editApplied{}, err
		}
		for _, l := range h.lines {
			startLine()
			curLen += len(l)
			writeString(l)
			pending = nl
			if v != nil && v.wants(newN) {
				v.begin()
				v.piece([]byte(l))
				v.add(newN)
			}
		}
	}
	if err := copyOld(-1, true); err != nil {
		return editApplied{}, err
	}
	if started && st.finalNewline {
		if pending == "" {
			pending = nl
		}
		writeString(pending)
	}
	if started && !st.finalNewline && curLen == 0 {
		// An empty last line without an ending is no line at all (SPEC §2):
		// the file now ends with the previous line's ending.
		if v != nil && len(v.whole) > 0 && v.whole[len(v.whole)-1] == newN {
			v.whole = v.whole[:len(v.whole)-1]
		}
		newN--
	}
	if werr == nil {
		werr = bw.Flush()
	}
	if werr != nil {
		return editApplied{}, fmt.Errorf("write: %w", werr)
	}
	return editApplied{readBytes: lr.n, readSum: lr.h.Sum32(), newSum: out.Sum32(), newLines: newN}, nil
}

// editShowRanges returns the new line numbers an Edit result shows: each
// changed region with EditContextLines lines of context, merged.
func editShowRanges(hunks []editHunk, newTotal int) []sourceset.Span {
	var out []sourceset.Span
	delta := 0
	for _, h := range hunks {
		ns := h.oldStart + delta
		sp := sourceset.Span{From: max(ns-limits.EditContextLines, 1), To: min(ns+len(h.lines)-1+limits.EditContextLines, newTotal)}
		delta += len(h.lines) - h.oldCount
		if sp.From > sp.To {
			continue
		}
		if n := len(out); n > 0 && sp.From <= out[n-1].To+1 {
			out[n-1].To = max(out[n-1].To, sp.To)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// editShift maps old source-set spans through the hunks: lines removed by
// an op vanish, the others move by the lines inserted and removed before them.
func editShift(spans []sourceset.Span, hunks []editHunk) []sourceset.Span {
	var out []sourceset.Span
	emit := func(from, to, delta int) { // old unchanged segment from..to (to < 0: no end)
		for _, sp := range spans {
			a, b := max(sp.From, from), sp.To
			if to >= 0 {
				b = min(b, to)
			}
			if a <= b {
				out = append(out, sourceset.Span{From: a + delta, To: b + delta})
			}
		}
	}
	next, delta := 1, 0
	for _, h := range hunks {
		emit(next, h.oldStart-1, delta)
		next = h.oldStart + h.oldCount
		delta += len(h.lines) - h.oldCount
	}
	emit(next, -1, delta)
	return out
}

// editLocks serialises edits and writes of one file within a session.
type editLocks struct {
	mu sync.Mutex
	m  map[string]*editLock
}

type editLock struct {
	mu   sync.Mutex
	refs int
}

// lock locks path and returns its unlock function.
func (l *editLocks) lock(path string) func() {
	l.mu.Lock()
	e := l.m[path]
	if e == nil {
		e = &editLock{}
		l.m[path] = e
	}
	e.refs++
	l.mu.Unlock()
	e.mu.Lock()
	return func() {
		e.mu.Unlock()
		l.mu.Lock()
		if e.refs--; e.refs == 0 {
			delete(l.m, path)
		}
		l.mu.Unlock()
	}
}

func fileLocks(s *Session) *editLocks {
	return s.lazy("edit.locks", func() any { return &editLocks{m: map[string]*editLock{}} }).(*editLocks)
}

// editResolve resolves a path a tool is about to modify: inside the
// workspace or the scratch dir, never an external root.
func editResolve(s *Session, tool, p string) (walk.Path, error) {
	if p == "" {
		return walk.Path{}, rpc.Errorf(rpc.InvalidArgument, "%s: path is required", tool)
	}
	rp, err := resolvePath(s, tool, p)
	if err != nil {
		return walk.Path{}, err
	}
	if rp.Root == walk.External {
		return walk.Path{}, rpc.Errorf(rpc.PermissionDenied, "%s %s: external roots are read-only", tool, rp.Display)
	}
	return rp, nil
}

// editCancelled turns a context error into the CANCELLED wire error.
func editCancelled(tool, p string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return rpc.Errorf(rpc.Cancelled, "%s %s: cancelled; the file is unchanged", tool, p)
	}
	return err
}

func editCall(ctx context.Context, s *Session, call *rpc.Call) (any, error) {
	var p editParams
	if err := call.Decode(&p); err != nil {
		return nil, err
	}
	if len(p.Tag) != 4 || strings.Trim(p.Tag, "0123456789abcdef") != "" {
		return nil, rpc.Errorf(rpc.InvalidArgument, "edit: tag %q is not 4 lowercase hex digits from a Read or Grep result", p.Tag)
	}
	hunks, err := editParseOps(p.Ops)
	if err != nil {
		return nil, err
	}
	rp, err := editResolve(s, "edit", p.Path)
	if err != nil {
		return nil, err
	}
	unlock := fileLocks(s).lock(rp.Abs)
	defer unlock()
	res, err := editFile(ctx, s, rp, p.Tag, hunks)
	return res, editCancelled("edit", rp.Display, err)
}

// editFile runs an edit on a resolved path with its lock held.
func editFile(ctx context.Context, s *Session, rp walk.Path, tag string, hunks []editHunk) (*editResult, error) {
	f, err := os.Open(rp.Abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, rpc.Errorf(rpc.NotFound, "edit %s: no such file", rp.Display)
	}
	if err != nil {
		return nil, fmt.Errorf("edit %s: %w", rp.Display, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("edit %s: %w", rp.Display, err)
	}
	if fi.IsDir() {
		return nil, rpc.Errorf(rpc.IsDirectory, "edit %s: is a directory", rp.Display)
	}
	if !fi.Mode().IsRegular() {
		return nil, rpc.Errorf(rpc.InvalidArgument, "edit %s: not a regular file", rp.Display)
	}
	st, err := editScan(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("edit %s: read: %w", rp.Display, err)
	}
	if cur := sourceset.TagSum(st.sum); cur != tag {
		return nil, rpc.Errorf(rpc.StaleTag, "edit %s: tag %s is stale; the file's tag is now %s: Read it again", rp.Display, tag, cur).
			WithData(map[string]any{"tag": cur})
	}
	// Line ranges against this version, then visibility.
	for _, h := range hunks {
		if h.oldCount > 0 && h.oldStart+h.oldCount-1 > st.lines || h.oldCount == 0 && h.oldStart-1 > st.lines {
			return nil, rpc.Errorf(rpc.InvalidArgument, "edit %s: ops[%d] reaches past the last line (%d)", rp.Display, h.op, st.lines)
		}
	}
	var notVisible []int
	more := 0
	for _, h := range hunks {
		lines, count := s.Sources.Missing(rp.Abs, tag, h.touchFrom, h.touchTo, limits.EditMaxListedLines-len(notVisible))
		notVisible = append(notVisible, lines...)
		more += count - len(lines)
	}
	if len(notVisible) > 0 {
		sort.Ints(notVisible)
		msg := fmt.Sprintf("edit %s: lines %s were not shown whole in version %s (never read, or clipped at %d characters)",
			rp.Display, editLineList(notVisible, more), tag, limits.MaxLineChars)
		data := map[string]any{"lines": notVisible}
		if more > 0 {
			data["more"] = more
		}
		return nil, rpc.Errorf(rpc.LineNotVisible, "%s; Read them (narrow wide lines first) before editing", msg).WithData(data)
	}

	newTotal := st.lines
	for _, h := range hunks {
		newTotal += len(h.lines) - h.oldCount
	}
	v := &editView{show: editShowRanges(hunks, newTotal)}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("edit %s: %w", rp.Display, err)
	}
	if err := ctx.Err(); err != nil { // a cancelled call touches no file
		return nil, err
	}
	af, err := atomicfile.Replace(rp.Abs, fi)
	if err != nil {
		return nil, fmt.Errorf("edit %s: %w", rp.Display, err)
	}
	defer af.Abort()
	ap, err := editApply(ctx, f, af, st, hunks, v)
	if err != nil && !errors.Is(err, errEditChanged) {
		return nil, fmt.Errorf("edit %s: %w", rp.Display, err)
	}
	if err != nil || ap.readSum != st.sum || ap.readBytes != st.size {
		cur, _ := os.Open(rp.Abs)
		now := ""
		if cur != nil {
			now, _ = sourceset.Tag(cur)
			cur.Close()
		}
		return nil, rpc.Errorf(rpc.StaleTag, "edit %s: the file changed while it was being edited; nothing was written: Read it again", rp.Display).
			WithData(map[string]any{"tag": now})
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := af.Commit(); err != nil {
		return nil, fmt.Errorf("edit %s: %w", rp.Display, err)
	}

	newTag := sourceset.TagSum(ap.newSum)
	shifted := editShift(s.Sources.Spans(rp.Abs, tag), hunks)
	s.Sources.Forget(rp.Abs, tag)
	s.Sources.Forget(rp.Abs, newTag) // a colliding older version's lines say nothing of this one
	for _, sp := range shifted {
		s.Sources.Add(rp.Abs, newTag, sp.From, sp.To)
	}
	for _, n := range v.whole {
		s.Sources.Add(rp.Abs, newTag, n, n)
	}

	res := &editResult{
		Path:         rp.Display,
		Tag:          newTag,
		Content:      "[" + rp.Display + "#" + newTag + "]\n" + v.content.String(),
		TotalLines:   ap.newLines,
		ClippedLines: v.clipped,
	}
	var notes []string
	if len(v.clipped) > 0 {
		notes = append(notes, fmt.Sprintf("%d lines clipped at %d characters (not editable until read narrower).", len(v.clipped), limits.MaxLineChars))
	}
	if v.stopped > 0 {
		notes = append(notes, fmt.Sprintf("Changed regions shown up to line %d (limit %d lines / %d KB); lines from %d on were not shown: Read with offset=%d before editing them.",
			v.stopped-1, limits.SearchBudgetLines, limits.SearchBudgetBytes/limits.KB, v.stopped, v.stopped))
	}
	res.Notice = strings.Join(notes, " ")
	return res, nil
}

// editLineList formats line numbers for a message.
func editLineList(lines []int, more int) string {
	parts := make([]string, len(lines))
	for i, n := range lines {
		parts[i] = strconv.Itoa(n)
	}
	s := strings.Join(parts, ", ")
	if more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}
