package cut

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/toolrpc/toolrpc/limits"
)

// Budget bounds the text a cut keeps: at most Bytes bytes and Lines lines
// (lines as in SPEC §2, each with its "\n"). A cut raises Bytes below
// utf8.UTFMax to utf8.UTFMax and Lines below 1 to 1, so one character always
// fits and a non-empty stream never yields an empty excerpt.
type Budget struct {
	Bytes int
	Lines int
}

// ShellBudget is the budget of a Bash result's stdout (BUDGET_SHELL, head kept).
func ShellBudget() Budget {
	return Budget{Bytes: limits.ShellBudgetBytes, Lines: limits.ShellBudgetLines}
}

// ShellErrBudget is the budget of a Bash result's stderr (BUDGET_SHELL_ERR, tail kept).
func ShellErrBudget() Budget {
	return Budget{Bytes: limits.ShellErrBudgetBytes, Lines: limits.ShellErrBudgetLines}
}

// String renders the budget as markers state it: "4000 lines / 96KB".
func (b Budget) String() string {
	return fmt.Sprintf("%d lines / %s", b.Lines, byteSize(b.Bytes))
}

// byteSize renders n bytes as "96KB" when n is a whole number of KB, else "n bytes".
func byteSize(n int) string {
	if n > 0 && n%limits.KB == 0 {
		return fmt.Sprintf("%dKB", n/limits.KB)
	}
	return fmt.Sprintf("%d bytes", n)
}

func (b Budget) normalized() Budget {
	b.Bytes = max(b.Bytes, utf8.UTFMax)
	b.Lines = max(b.Lines, 1)
	return b
}

// Stream is one output stream as the capture layer retained it: the input of
// Head and Tail.
type Stream struct {
	// Text is the retained text: the stream's first part for Head, its last
	// part for Tail. It may hold any bytes.
	Text []byte
	// Lines is the number of lines the stream produced, counted even past the
	// capture cap (N of the marker). A value below the lines of Text, 0
	// included, is raised to the lines of Text.
	Lines int
	// EdgeLineBytes is the full length, without its line ending ("\n" or
	// "\r\n"), of the stream's first line (Head) or last line (Tail),
	// known to the capture layer even when Text holds only part of that line.
	// It is used only while Text does not hold the whole line; 0 means unknown.
	// LineCounter.FirstLineBytes and LastLineBytes measure it as needed here.
	EdgeLineBytes int
	// Dropped reports that the capture layer did not retain everything beyond
	// Text's far end (after it for Head, before it for Tail). A cut is
	// then announced even when Text fits the budget. Head then never keeps
	// a last line of Text that lacks its "\n" as a whole line. Tail cannot
	// see where Text begins, so it takes Text to begin at a line start, as
	// package capture retains it, unless Text is a single line shorter than
	// EdgeLineBytes: then Text is the end of that line.
	Dropped bool
	// Spill is the path of the file holding the captured copy, "" when no
	// spill file was written. The marker names it only when it is set.
	Spill string
}

// Result is the result of Head or Tail.
type Result struct {
	// Text is what the result shows: the kept text, plus the SPEC §6.2 marker
	// on its own line when Truncated. It is always valid UTF-8.
	Text string
	// KeptLines is the number of whole lines kept; 0 when not even the edge
	// line fitted and only part of it was kept.
	KeptLines int
	// KeptBytes is the number of bytes of Stream.Text the kept text shows. It
	// equals the kept text's length unless invalid bytes became U+FFFD.
	KeptBytes int
	// Truncated reports that something was cut; the marker is present iff so.
	Truncated bool
}

// Head keeps the head of a stream within b (SPEC §6.2, Bash stdout): the
// longest prefix of whole lines with at most b.Lines lines and b.Bytes bytes,
// followed, when anything was cut, by a "\n" if the kept text does not end with
// one, the marker "[truncated: kept the first K of N lines; …]" and "\n". When
// not even the first line fits, the longest character-boundary-safe prefix of
// that line within b.Bytes is kept and the marker says "no complete line fits
// the …KB limit; kept X bytes of a single Y-byte line".
//
// The budget applies to the text as shown: invalid UTF-8 bytes are replaced by
// U+FFFD before lines are measured, so the kept text never exceeds b.Bytes
// bytes even after repair. The marker's bytes do not count against b.
func Head(s Stream, b Budget) Result {
	b = b.normalized()
	raw := s.Text
	total := max(s.Lines, CountLines(raw))

	// Everything the result could show lies within the first b.Bytes bytes:
	// repair never shrinks text.
	w := raw[:PrefixWithin(raw, b.Bytes)]
	fixed := w
	if !utf8.Valid(w) {
		fixed = repairBytes(w)
	}
	// The final line of w is whole only if it ends with "\n", or w is the
	// entire stream.
	wholeToEnd := len(w) == len(raw) && !s.Dropped
	end := 0
	if wholeToEnd && len(fixed) <= b.Bytes {
		end = len(fixed)
	} else {
		end = bytes.LastIndexByte(fixed[:min(len(fixed), b.Bytes)], '\n') + 1
	}
	lines := CountLines(fixed[:end])
	if lines > b.Lines {
		end = afterNewlines(fixed, b.Lines)
		lines = b.Lines
	}

	if lines == 0 && (len(raw) > 0 || (s.Dropped && s.EdgeLineBytes > 0)) {
		// No whole line fits: keep a prefix of the first line's content.
		y, whole := firstLine(raw, s.Dropped)
		lw := raw[:PrefixWithin(raw[:y], b.Bytes)]
		lf := lw
		if !utf8.Valid(lw) {
			lf = repairBytes(lw)
		}
		keep := lf[:PrefixWithin(lf, b.Bytes)]
		x := rawLen(lw, lf, len(keep))
		if !whole {
			y = max(y, s.EdgeLineBytes)
		}
		m := singleLineMarker(x, y, b, nextStep(s, true))
		return Result{Text: headText(keep, m), KeptBytes: x, Truncated: true}
	}

	kept := fixed[:end]
	keptRaw := rawLen(w, fixed, end)
	if keptRaw == len(raw) && !s.Dropped && lines >= total {
		return Result{Text: string(kept), KeptLines: lines, KeptBytes: keptRaw}
	}
	m := linesMarker("first", lines, total, b, nextStep(s, true))
	return Result{Text: headText(kept, m), KeptLines: lines, KeptBytes: keptRaw, Truncated: true}
}

// Tail keeps the tail of a stream within b (SPEC §6.2, Bash stderr): the
// marker "[truncated: kept the last K of N lines; …]" and "\n" when anything
// was cut, then the longest suffix of whole lines with at most b.Lines lines
// and b.Bytes bytes. When not even the last line fits, the longest
// character-boundary-safe suffix of that line (without its ending) within
// b.Bytes is kept and the marker says "no complete line fits …". Budget and
// repair as for Head.
func Tail(s Stream, b Budget) Result {
	b = b.normalized()
	raw := s.Text
	total := max(s.Lines, CountLines(raw))

	off := SuffixWithin(raw, b.Bytes)
	w := raw[off:]
	fixed := w
	if !utf8.Valid(w) {
		fixed = repairBytes(w)
	}
	// The first line of w is whole only if it starts the stream (or, when
	// capture dropped the start, a line) or follows a "\n".
	startsLine := (off == 0 && !(s.Dropped && endOfLine(raw, s.EdgeLineBytes))) ||
		(off > 0 && raw[off-1] == '\n')
	lo := max(len(fixed)-b.Bytes, 0)
	start := len(fixed)
	if lo == 0 && startsLine {
		start = 0
	} else {
		from := max(lo-1, 0)
		if nl := bytes.IndexByte(fixed[from:], '\n'); nl >= 0 {
			start = from + nl + 1
		}
	}
	lines := CountLines(fixed[start:])
	if lines > b.Lines {
		start = startOfLast(fixed, start, b.Lines)
		lines = b.Lines
	}

	if lines == 0 && (len(raw) > 0 || (s.Dropped && s.EdgeLineBytes > 0)) {
		// No whole line fits: keep a suffix of the last line's content.
		q, e, whole := lastLine(raw, s.Dropped)
		lw := raw[q+SuffixWithin(raw[q:e], b.Bytes) : e]
		lf := lw
		if !utf8.Valid(lw) {
			lf = repairBytes(lw)
		}
		ks := SuffixWithin(lf, b.Bytes)
		x := len(lw) - rawLen(lw, lf, ks)
		y := e - q
		if !whole {
			y = max(y, s.EdgeLineBytes)
		}
		m := singleLineMarker(x, y, b, nextStep(s, false))
		return Result{Text: tailText(lf[ks:], m), KeptBytes: x, Truncated: true}
	}

	kept := fixed[start:]
	keptRaw := len(w) - rawLen(w, fixed, start)
	if keptRaw == len(raw) && !s.Dropped && lines >= total {
		return Result{Text: string(kept), KeptLines: lines, KeptBytes: keptRaw}
	}
	m := linesMarker("last", lines, total, b, nextStep(s, false))
	return Result{Text: tailText(kept, m), KeptLines: lines, KeptBytes: keptRaw, Truncated: true}
}

// headText is the kept text, a "\n" if it lacks one, the marker and "\n".
func headText(kept []byte, marker string) string {
	var sb strings.Builder
	sb.Grow(len(kept) + len(marker) + 2)
	sb.Write(kept)
	if len(kept) > 0 && kept[len(kept)-1] != '\n' {
		sb.WriteByte('\n')
	}
	sb.WriteString(marker)
	sb.WriteByte('\n')
	return sb.String()
}

// tailText is the marker, "\n" and the kept text.
func tailText(kept []byte, marker string) string {
	var sb strings.Builder
	sb.Grow(len(kept) + len(marker) + 1)
	sb.WriteString(marker)
	sb.WriteByte('\n')
	sb.Write(kept)
	return sb.String()
}

// linesMarker is the marker of a cut that kept whole lines; end is "first" or "last".
func linesMarker(end string, kept, total int, b Budget, next string) string {
	return fmt.Sprintf("[truncated: kept the %s %d of %d lines; limit %s. %s]",
		end, kept, total, b, next)
}

// singleLineMarker is the marker of a cut that kept x bytes of a y-byte line.
func singleLineMarker(x, y int, b Budget, next string) string {
	return fmt.Sprintf("[truncated: no complete line fits the %s limit; kept %d bytes of a single %d-byte line. %s]",
		byteSize(b.Bytes), x, y, next)
}

// nextStep tells the reader of a marker of s where to get the rest, and,
// when the spilled copy is itself cut by the capture cap (s.Dropped), where
// that copy ends (SPEC §6.2): a model must never be told a file is full when
// it is not.
func nextStep(s Stream, head bool) string {
	if s.Spill == "" {
		return "Narrow the request to see more."
	}
	next := "Full output saved to " + Repair([]byte(s.Spill)) + " — Grep it, or Read it with offset/limit."
	if s.Dropped {
		next += " " + savedCopy(s, head)
	}
	return next
}

// savedCopy is the sentence saying which part of the stream a cut spilled
// copy holds: "The saved copy holds lines 1–89232 of 200000 (spill limit
// 512KB)." for a head, "… the last 91022 lines of 200000 …" for a tail.
func savedCopy(s Stream, head bool) string {
	total := max(s.Lines, CountLines(s.Text))
	var held int
	if head {
		held = bytes.Count(s.Text, []byte{'\n'}) // whole lines; a part of the next may follow
	} else {
		held = CountLines(s.Text)
	}
	limit := byteSize(limits.CaptureMaxBytes)
	if held >= limits.CaptureMaxLines {
		limit = fmt.Sprintf("%d lines", limits.CaptureMaxLines)
	}
	switch {
	case head && held == 0:
		return fmt.Sprintf("The saved copy holds the first %d bytes of line 1 (spill limit %s).", len(s.Text), limit)
	case head:
		return fmt.Sprintf("The saved copy holds lines 1–%d of %d (spill limit %s).", held, total, limit)
	case held == 1 && len(bytes.TrimRight(s.Text, "\r\n")) < s.EdgeLineBytes:
		return fmt.Sprintf("The saved copy holds the last %d bytes of line %d (spill limit %s).", len(s.Text), total, limit)
	case held == 1:
		return fmt.Sprintf("The saved copy holds the last line of %d (spill limit %s).", total, limit)
	}
	return fmt.Sprintf("The saved copy holds the last %d lines of %d (spill limit %s).", held, total, limit)
}

// rawLen returns how many bytes of raw the first n bytes of fixed show, where
// fixed is raw itself or repairBytes(raw) and n falls on a character boundary.
func rawLen(raw, fixed []byte, n int) int {
	if len(raw) == len(fixed) {
		return n // nothing was repaired
	}
	i, f := 0, 0
	for f < n && i < len(raw) {
		if raw[i] < utf8.RuneSelf {
			i++
			f++
			continue
		}
		r, size := utf8.DecodeRune(raw[i:])
		if r == utf8.RuneError && size == 1 {
			f += len(replacement)
		} else {
			f += size
		}
		i += size
	}
	return i
}

// trimCR drops one trailing "\r" from a line whose "\n" was removed.
func trimCR(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		return line[:n-1]
	}
	return line
}

// afterNewlines returns the offset just past the n-th "\n" of b, or len(b).
func afterNewlines(b []byte, n int) int {
	pos := 0
	for range n {
		nl := bytes.IndexByte(b[pos:], '\n')
		if nl < 0 {
			return len(b)
		}
		pos += nl + 1
	}
	return pos
}

// startOfLast returns where the last n lines of b[from:] begin.
func startOfLast(b []byte, from, n int) int {
	e := len(b)
	if e > from && b[e-1] == '\n' {
		e--
	}
	for range n {
		nl := bytes.LastIndexByte(b[from:e], '\n')
		if nl < 0 {
			return from
		}
		e = from + nl
	}
	return e + 1
}

// firstLine returns the length without its ending of the first line of text
// (text[:n] is its content) and whether text holds that line whole.
func firstLine(text []byte, dropped bool) (n int, whole bool) {
	if nl := bytes.IndexByte(text, '\n'); nl >= 0 {
		return len(trimCR(text[:nl])), true
	}
	return len(text), !dropped
}

// lastLine returns the content text[start:end] of the last line of text,
// without its ending, and whether text holds that line whole.
func lastLine(text []byte, dropped bool) (start, end int, whole bool) {
	end = len(text)
	if end > 0 && text[end-1] == '\n' {
		end = len(trimCR(text[:end-1]))
	}
	nl := bytes.LastIndexByte(text[:end], '\n')
	return nl + 1, end, nl >= 0 || !dropped
}

// endOfLine reports whether text is a single line shorter than the stream's
// last line, edge bytes long: the end of that line.
func endOfLine(text []byte, edge int) bool {
	start, end, _ := lastLine(text, true)
	return start == 0 && end < edge
}

// CountLines returns the number of lines of b as SPEC §2 counts them: a line
// ends at "\n", a final line without "\n" counts, and empty text has 0 lines.
func CountLines(b []byte) int {
	n := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// LineCounter counts a stream written to it in pieces as SPEC §2 does, and
// measures its first and last lines for the "single Y-byte line" marker. Its
// cost is a scan of each piece for "\n"; it retains nothing. The zero value is
// ready to use. A LineCounter is not safe for concurrent use.
type LineCounter struct {
	bytes     int
	newlines  int
	first     int  // length of the first line without its ending, once it ended
	firstDone bool // the first line has ended
	last      int  // length of the last ended line without its ending
	cur       int  // bytes of the line not yet ended
	prevCR    bool // the last byte written was "\r"
}

// Write counts p. It never fails.
func (c *LineCounter) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.bytes += len(p)
	n := bytes.Count(p, []byte{'\n'})
	if n == 0 {
		c.cur += len(p)
		c.prevCR = p[len(p)-1] == '\r'
		return len(p), nil
	}
	if !c.firstDone {
		nl := bytes.IndexByte(p, '\n')
		c.first = c.endedLen(p, nl)
		c.firstDone = true
	}
	lastNL := bytes.LastIndexByte(p, '\n')
	if n == 1 {
		c.last = c.endedLen(p, lastNL)
	} else {
		prev := bytes.LastIndexByte(p[:lastNL], '\n')
		c.last = len(trimCR(p[prev+1 : lastNL]))
	}
	c.newlines += n
	c.cur = len(p) - lastNL - 1
	c.prevCR = p[len(p)-1] == '\r'
	return len(p), nil
}

// endedLen is the length without its ending of the line in progress that the
// "\n" at p[nl] ends.
func (c *LineCounter) endedLen(p []byte, nl int) int {
	n := c.cur + nl
	if (nl > 0 && p[nl-1] == '\r') || (nl == 0 && c.prevCR) {
		n--
	}
	return n
}

// Bytes returns the number of bytes written.
func (c *LineCounter) Bytes() int { return c.bytes }

// Lines returns the number of lines written so far, a final line without "\n"
// included.
func (c *LineCounter) Lines() int {
	if c.cur > 0 {
		return c.newlines + 1
	}
	return c.newlines
}

// FirstLineBytes returns the length of the first line without its ending; while
// that line has not ended, all bytes written so far.
func (c *LineCounter) FirstLineBytes() int {
	if c.firstDone {
		return c.first
	}
	return c.cur
}

// LastLineBytes returns the length of the last line without its ending: the
// line not yet ended if it has bytes, else the last line that ended.
func (c *LineCounter) LastLineBytes() int {
	if c.cur > 0 {
		return c.cur
	}
	return c.last
}
