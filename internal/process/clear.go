package process

import "strings"

// Clearing the main screen (SPEC §13.2). Watchers (vite, jest --watch,
// create-react-app) clear the terminal by printing rows-2 newlines, then
// cursor-home and erase-below, then their new banner. Rendered as lines,
// that is a run of empty lines before every banner: noise a reader pays for
// and that hides the banner's place. So the line renderer holds back empty
// lines: they are emitted only when a non-empty line follows them, and a
// clear (ED 2 or 3, cursor-home then ED 0, RIS) drops them, with the
// current line. At most a screen's rows are held: the lines above them
// have scrolled off the screen, so no clear can erase them, and they are
// emitted. What was emitted before stays in the log, which is append-only.

// holdBlank holds back one empty line; past a screen's rows, the oldest
// scrolled off and is emitted.
func (r *Renderer) holdBlank() {
	if r.blank >= r.rows {
		r.emit("\n")
		return
	}
	r.blank++
}

// releaseBlank emits the empty lines held back: a non-empty line follows
// them.
func (r *Renderer) releaseBlank() {
	if r.blank > 0 {
		n := r.blank
		r.blank = 0
		r.emit(strings.Repeat("\n", n))
	}
}

// eraseDisplay handles ED on the main screen: erasing all of it, or all
// below a cursor at home, is a clear.
func (r *Renderer) eraseDisplay(mode int, home bool) {
	switch {
	case mode == 2 || mode == 3 || mode == 0 && home:
		r.clear()
	case mode == 0:
		r.eraseLine(0)
	}
}

// clear drops what a clear of the screen erases and the log does not hold
// yet: the empty lines held back and the current line. A part of the line
// already flushed stays, ended: the next text starts a line of its own.
func (r *Renderer) clear() {
	r.blank = 0
	r.line, r.col = r.line[:0], 0
	if r.flushed != "" {
		r.emit("\n")
		r.flushed = ""
	}
	r.home = true
}
