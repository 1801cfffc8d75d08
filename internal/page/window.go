package page

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolrpc/toolrpc/internal/cut"
	"github.com/toolrpc/toolrpc/internal/textenc"
	"github.com/toolrpc/toolrpc/limits"
)

// window assembles the content of one Read result.
type window struct {
	offset, limit int64
	content       bytes.Buffer
	count         int
	clipped       []int64
	clippedLong   int // clipped for length
	lossy         int // shown with U+FFFD
	budget        cut.ResultBudget
	stopped       bool       // the budget stopped the window
	runs          [][2]int64 // whole lines, for the source set
	run           [2]int64   // current run; run[0] == 0 when none
	num           []byte
	unsizedCut    bool              // a file reporting size 0 went on past UnsizedFileMaxBytes
	enc           *textenc.Encoding // nil: UTF-8 without a BOM
	decoded       []byte
}

func newWindow(display, tag string, offset, limit int64) *window {
	w := &window{offset: offset, limit: limit}
	w.content.Grow(min(limits.SearchBudgetBytes, 4*limits.KB))
	header := "[" + display + "#" + tag + "]\n"
	w.budget.TakeHeader(len(header)) // a path is far shorter than the budget
	w.content.WriteString(header)
	return w
}

// add formats line no; it is the lineindex.LineFunc of the scan.
func (w *window) add(no int64, line []byte, long bool) bool {
	text, clipped, lossy := line, long, false
	if w.enc != nil {
		text, lossy = w.decode(no, line, long)
	}
	if long || len(text) > limits.MaxLineChars || !utf8.Valid(text) {
		// Only such lines can need clipping or repair (a line has no more
		// characters than bytes); the rest are shown as they are.
		s, c, l := cut.ClipLine(text)
		text, clipped, lossy = []byte(s), c || long, l || lossy
	}
	w.num = strconv.AppendInt(w.num[:0], no, 10)
	size := len(w.num) + 1 + len(text) + 1
	if !w.budget.Take(size) {
		w.stopped = true
		return false
	}
	w.content.Write(w.num)
	w.content.WriteByte(':')
	w.content.Write(text)
	w.content.WriteByte('\n')
	w.count++
	if clipped || lossy {
		w.clipped = append(w.clipped, no)
		if clipped {
			w.clippedLong++
		} else {
			w.lossy++
		}
		w.flushRun()
	} else if w.run[0] == 0 {
		w.run = [2]int64{no, no}
	} else {
		w.run[1] = no
	}
	return int64(w.count) < w.limit
}

// decode returns line, bytes of a file in w.enc, as UTF-8 text without the
// BOM; lossy reports text that would not encode back to the same bytes. A
// long line's prefix may end inside a character; it is clipped anyway.
func (w *window) decode(no int64, line []byte, long bool) (text []byte, lossy bool) {
	if no == 1 {
		line = bytes.TrimPrefix(line, w.enc.BOM())
	}
	if !w.enc.Transcoded() {
		return line, false
	}
	if long && w.enc.Unit() == 2 {
		line = line[:len(line)&^1]
	}
	s, exact := w.enc.Decode(line)
	w.decoded = append(w.decoded[:0], s...)
	return w.decoded, !exact && !long
}

func (w *window) flushRun() {
	if w.run[0] != 0 {
		w.runs = append(w.runs, w.run)
		w.run = [2]int64{}
	}
}

// notice says what the window holds and how to get the rest; "" when the
// whole file was shown as is.
func (w *window) notice(total int64) string {
	var parts []string
	switch {
	case total == 0:
		parts = append(parts, "The file is empty (0 lines).")
	case w.offset > total:
		parts = append(parts, fmt.Sprintf("Offset %d is past the end of the file, which has %s.", w.offset, plural(int(total), "line", "lines")))
	default:
		first, last := w.offset, w.offset+int64(w.count)-1
		span := fmt.Sprintf("Lines %d–%d of %d.", first, last, total)
		if w.count == 0 {
			span = fmt.Sprintf("No line of %d fits.", total)
		}
		switch {
		case w.stopped:
			parts = append(parts, span+" "+w.budget.Notice(fmt.Sprintf("%d of the %d requested lines", w.count, w.limit), fmt.Sprintf("offset=%d", last+1)))
		case last < total:
			parts = append(parts, fmt.Sprintf("%s Next: offset=%d.", span, last+1))
		case first > 1:
			parts = append(parts, fmt.Sprintf("%s End of file.", span))
		}
	}
	if w.clippedLong > 0 {
		parts = append(parts, fmt.Sprintf("%s longer than %d characters clipped (see clippedLines); clipped lines cannot be edited.",
			plural(w.clippedLong, "line", "lines"), limits.MaxLineChars))
	}
	if w.lossy > 0 {
		parts = append(parts, fmt.Sprintf("%s with bytes that are not valid UTF-8, shown as U+FFFD and counted as clipped.",
			plural(w.lossy, "line", "lines")))
	}
	if d := w.enc.Describe(); d != "" {
		parts = append(parts, d)
	}
	if w.unsizedCut {
		parts = append(parts, fmt.Sprintf("The file reports size 0; only its first %d MiB were read.", limits.UnsizedFileMaxBytes/limits.MiB))
	}
	return strings.Join(parts, " ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
