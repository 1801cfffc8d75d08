package lineedit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/toolrpc/toolrpc/internal/cut"
	"github.com/toolrpc/toolrpc/internal/sourceset"
	"github.com/toolrpc/toolrpc/internal/textenc"
	"github.com/toolrpc/toolrpc/limits"
)

// view collects the lines of the new version an Edit result shows.
type view struct {
	show    []sourceset.Span // new line numbers to show, ascending, disjoint
	i       int
	content strings.Builder
	lines   int // lines shown
	budget  cut.ResultBudget
	whole   []int // shown whole: join the new version's source set
	clipped []int
	stopped int // first line to show that the budget left out (0: none)
	cur     []byte
	curOver bool
	enc     *textenc.Encoding // the lines' bytes are in enc (nil: UTF-8)
}

// lineCap is how many bytes of a line are kept for display: a line longer
// than that has more than MaxLineChars characters and is clipped anyway.
const lineCap = 4*limits.MaxLineChars + 4

// wants reports whether new line n is shown.
func (v *view) wants(n int) bool {
	for v.i < len(v.show) && v.show[v.i].To < n {
		v.i++
	}
	return v.stopped == 0 && v.i < len(v.show) && v.show[v.i].From <= n
}

func (v *view) begin() { v.cur, v.curOver = v.cur[:0], false }

func (v *view) piece(b []byte) {
	room := lineCap - len(v.cur)
	if len(b) > room {
		b, v.curOver = b[:room], true
	}
	v.cur = append(v.cur, b...)
}

// add appends new line n, whose text is v.cur, to the content.
func (v *view) add(n int) {
	b := v.cur
	exact := true
	if v.enc != nil {
		var s string
		s, exact = v.enc.Decode(b)
		b = []byte(s)
	}
	text, whole := display(b, v.curOver)
	whole = whole && exact
	entry := strconv.Itoa(n) + ":" + text + "\n"
	if !v.budget.Take(len(entry)) {
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

// display renders a line as Read shows it (cut.ClipLine); a clipped
// or lossily decoded line, or one cut by lineCap (over), is not whole.
func display(b []byte, over bool) (string, bool) {
	text, clipped, lossy := cut.ClipLine(b)
	return text, !over && !clipped && !lossy
}

// showRanges returns the new line numbers an Edit result shows: each
// changed region with EditContextLines lines of context, merged.
func showRanges(hunks []Hunk, newTotal int) []sourceset.Span {
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

// Shift maps old source-set spans through the hunks: lines removed by
// an op vanish, the others move by the lines inserted and removed before them.
func Shift(spans []sourceset.Span, hunks []Hunk) []sourceset.Span {
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

// notice says which shown lines are clipped and where the budget stopped
// the view; "" when neither.
func (v *view) notice() string {
	var notes []string
	if len(v.clipped) > 0 {
		lines := "lines"
		if len(v.clipped) == 1 {
			lines = "line"
		}
		notes = append(notes, fmt.Sprintf("%d %s clipped at %d characters (not editable until read narrower).", len(v.clipped), lines, limits.MaxLineChars))
	}
	if v.stopped > 0 {
		notes = append(notes, v.budget.Notice(fmt.Sprintf("%d lines of the changed regions, up to line %d", v.lines, v.stopped-1),
			fmt.Sprintf("Read with offset=%d before editing the lines from %d on", v.stopped, v.stopped)))
	}
	return strings.Join(notes, " ")
}
