package process

import (
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
	"github.com/charmbracelet/x/vt"

	"github.com/toolrpc/toolrpc/limits"
)

// ScreenHeader is the line that introduces a snapshot of the alternate
// screen, as in "[screen 120x40]".
func ScreenHeader(cols, rows int) string {
	return "[screen " + strconv.Itoa(cols) + "x" + strconv.Itoa(rows) + "]"
}

// A Renderer turns a terminal's byte stream into the text a model reads
// (SPEC §13.2): lines in their final state after carriage returns,
// backspaces, erase-line and cursor moves within the line; no escape
// sequence and no control byte but "\n" and "\t"; valid UTF-8; lines clipped
// at limits.MaxLineChars characters. With a screen (pty mode), a program on
// the alternate screen is rendered by a terminal emulator and shown as
// snapshots of its text.
//
// Text leaves the Renderer only through Emit, append-only: a committed line
// when its "\n" arrives, and, at Flush, the current line so far or the
// screen. A Renderer is not safe for concurrent use.
type Renderer struct {
	// Emit receives rendered text. It must not retain the slice.
	Emit func([]byte)
	// Reply, when set, receives the answers a terminal gives to queries
	// (cursor position, device attributes), to be written back to the
	// program.
	Reply func([]byte)

	parser     *ansi.Parser
	cols, rows int
	screenOK   bool

	line    []rune // the current line's cells
	col     int    // the cursor's column in line
	flushed string // the part of the current line Flush emitted
	blank   int    // empty lines held back: a clear drops them (clear.go)
	home    bool   // the cursor was sent home and nothing was drawn since
	hidden  bool   // the program hid the cursor (DECTCEM reset)

	screen *vt.Emulator // non-nil while the alternate screen is shown
	shown  string       // the last snapshot emitted
	dirty  bool         // the screen changed since the last snapshot

	// The Write in progress: the emulator is fed cur[segStart:], up to the
	// sequence (starting at escAt) that leaves the alternate screen.
	cur             []byte
	pos             int
	segStart, escAt int
}

// NewRenderer returns a Renderer for a terminal of cols × rows. screen
// enables the alternate screen (pty mode); without it, a switch to the
// alternate screen is ignored and its output goes through the line
// discipline like any other (pipe mode).
func NewRenderer(cols, rows int, screen bool, emit func([]byte)) *Renderer {
	r := &Renderer{Emit: emit, cols: cols, rows: rows, screenOK: screen}
	r.parser = ansi.NewParser()
	r.parser.SetDataSize(4 * limits.KB) // OSC and DCS payloads are dropped anyway
	r.parser.SetHandler(ansi.Handler{
		Print:     r.print,
		Execute:   r.execute,
		HandleCsi: r.csi,
		HandleEsc: r.esc,
	})
	return r
}

// Write renders p. It never fails.
func (r *Renderer) Write(p []byte) (int, error) {
	r.cur, r.segStart, r.escAt = p, 0, -1
	for i := 0; i < len(p); i++ {
		b := p[i]
		if r.screen == nil && r.parser.State() == parser.GroundState && b >= 0x20 && b < 0x7f {
			if n := r.plainLines(p[i:]); n > 0 {
				i += n - 1
				continue
			}
			// A run of printable ASCII on the line.
			j := i
			for j < len(p) && p[j] >= 0x20 && p[j] < 0x7f {
				r.put(rune(p[j]))
				j++
			}
			i = j - 1
			continue
		}
		r.pos = i
		if b == 0x1b {
			r.escAt = i
		}
		r.parser.Advance(b)
	}
	if r.screen != nil && r.segStart < len(p) {
		r.feedScreen(p[r.segStart:])
	}
	r.cur = nil
	return len(p), nil
}

// plainLines emits at once the whole lines of printable ASCII that start
// p, when the current line is empty: the common case needs no cell. It
// returns the bytes consumed.
func (r *Renderer) plainLines(p []byte) int {
	if len(r.line) != 0 || r.col != 0 || r.flushed != "" {
		return 0
	}
	end, start := 0, 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '\n' {
			if i == start || i-start > limits.MaxLineChars {
				break // an empty line may be held back (clear.go)
			}
			end, start = i+1, i+1
			continue
		}
		if c < 0x20 || c >= 0x7f {
			break
		}
	}
	if end > 0 {
		r.releaseBlank()
		r.home = false
		r.emitBytes(p[:end])
	}
	return end
}

// feedScreen writes output of the alternate screen to the emulator.
func (r *Renderer) feedScreen(b []byte) {
	if len(b) > 0 {
		_, _ = r.screen.Write(b)
		r.dirty = true
	}
}

// Flush emits what the reader has not seen yet of the current state: the
// screen's text when it changed since the last snapshot, else the current
// line's part Flush has not emitted. A redraw of an emitted part is emitted
// again as a line of its own.
func (r *Renderer) Flush() {
	if r.screen != nil {
		r.snapshot()
		return
	}
	cur := string(r.line)
	if cur != r.flushed {
		r.releaseBlank()
	}
	switch {
	case cur == r.flushed:
	case strings.HasPrefix(cur, r.flushed):
		r.emit(cur[len(r.flushed):])
		r.flushed = cur
	case cur != "":
		r.emit("\n" + cur)
		r.flushed = cur
	}
}

// Pending returns the current line, not yet committed by a "\n".
func (r *Renderer) Pending() string { return string(r.line) }

// ScreenPrompt returns, while the alternate screen is shown, the row the
// cursor is on when it reads as a prompt: a row with text that the cursor
// stands just after, where typing goes (less's ":", vim's command line). A
// row the cursor stands within or before, or an empty one, is data (a
// process row of top, a line of a file): then ok is false.
func (r *Renderer) ScreenPrompt() (text string, ok bool) {
	if r.screen == nil {
		return "", false
	}
	pos := r.screen.CursorPosition()
	rows := strings.Split(r.screen.String(), "\n")
	if pos.Y < 0 || pos.Y >= len(rows) {
		return "", false
	}
	row := strings.TrimRight(screenText(rows[pos.Y]), " \n")
	if strings.TrimSpace(row) == "" || pos.X < utf8.RuneCountInString(row) {
		return "", false
	}
	return row, true
}

// CursorHidden reports whether the program hid the cursor (top does while
// it shows its table): then no row is where typing goes.
func (r *Renderer) CursorHidden() bool {
	if r.screen != nil {
		return r.screen.CursorHidden()
	}
	return r.hidden
}

// Screen reports whether the alternate screen is shown.
func (r *Renderer) Screen() bool { return r.screen != nil }

// Resize changes the terminal's size.
func (r *Renderer) Resize(cols, rows int) {
	r.cols, r.rows = cols, rows
	if r.screen != nil {
		r.screen.Resize(cols, rows)
		r.dirty = true
	}
}

func (r *Renderer) emitBytes(b []byte) {
	if len(b) > 0 && r.Emit != nil {
		r.Emit(b)
	}
}

func (r *Renderer) emit(s string) {
	if s != "" && r.Emit != nil {
		r.Emit([]byte(s))
	}
}

// commit ends the current line.
func (r *Renderer) commit() {
	cur := string(r.line)
	if cur == "" && r.flushed == "" {
		r.holdBlank()
		return
	}
	r.releaseBlank()
	switch {
	case strings.HasPrefix(cur, r.flushed):
		r.emit(cur[len(r.flushed):] + "\n")
	default:
		r.emit("\n" + cur + "\n")
	}
	r.line, r.col, r.flushed = r.line[:0], 0, ""
}

func (r *Renderer) print(c rune) {
	if r.screen != nil {
		return
	}
	if c == utf8.RuneError || unicode.Is(unicode.Cc, c) || !utf8.ValidRune(c) {
		c = utf8.RuneError
	}
	r.put(c)
}

// put writes c at the cursor, padding with spaces past the line's end; cells
// past MaxLineChars are dropped.
func (r *Renderer) put(c rune) {
	r.home = false
	if r.col >= limits.MaxLineChars {
		return
	}
	for len(r.line) < r.col {
		r.line = append(r.line, ' ')
	}
	if r.col < len(r.line) {
		r.line[r.col] = c
	} else {
		r.line = append(r.line, c)
	}
	r.col++
}

func (r *Renderer) execute(b byte) {
	if r.screen != nil {
		return
	}
	r.home = false
	switch b {
	case '\n', '\v', '\f':
		r.commit()
	case '\r':
		r.col = 0
	case '\b':
		r.col = max(r.col-1, 0)
	case '\t':
		r.put('\t')
	}
}

func (r *Renderer) csi(cmd ansi.Cmd, params ansi.Params) {
	n, _, _ := params.Param(0, 1)
	if cmd.Prefix() == '?' && (cmd.Final() == 'h' || cmd.Final() == 'l') {
		r.privateMode(cmd.Final() == 'h', params)
		return
	}
	if r.screen != nil || cmd.Prefix() != 0 || cmd.Intermediate() != 0 {
		return
	}
	n = max(n, 1)
	home := r.home
	if cmd.Final() != 'm' { // SGR does not move the cursor
		r.home = false
	}
	switch cmd.Final() {
	case 'C', 'a': // CUF, HPR
		r.col = min(r.col+n, limits.MaxLineChars)
	case 'D': // CUB
		r.col = max(r.col-n, 0)
	case 'G', '`': // CHA, HPA
		r.col = min(n-1, limits.MaxLineChars)
	case 'H', 'f': // CUP: only the column is kept, and whether it is home
		c, _, _ := params.Param(1, 1)
		r.col = min(max(c, 1)-1, limits.MaxLineChars)
		r.home = n == 1 && c <= 1
	case 'J': // ED
		r.eraseDisplay(paramOr(params, 0), home)
	case 'K': // EL
		r.eraseLine(paramOr(params, 0))
	case 'X': // ECH
		for i := r.col; i < min(r.col+n, len(r.line)); i++ {
			r.line[i] = ' '
		}
	case 'P': // DCH
		if r.col < len(r.line) {
			r.line = append(r.line[:r.col], r.line[min(r.col+n, len(r.line)):]...)
		}
	case '@': // ICH
		if r.col < len(r.line) {
			blank := []rune(strings.Repeat(" ", min(n, limits.MaxLineChars)))
			r.line = append(r.line[:r.col], append(blank, r.line[r.col:]...)...)
			r.line = r.line[:min(len(r.line), limits.MaxLineChars)]
		}
	case 'n': // DSR
		if p, _, _ := params.Param(0, 0); p == 6 && r.Reply != nil {
			r.Reply([]byte("\x1b[1;" + strconv.Itoa(r.col+1) + "R"))
		}
	}
}

func paramOr(params ansi.Params, def int) int {
	p, _, _ := params.Param(0, def)
	return p
}

func (r *Renderer) eraseLine(mode int) {
	switch mode {
	case 0:
		if r.col < len(r.line) {
			r.line = r.line[:r.col]
		}
	case 1:
		for i := 0; i <= r.col && i < len(r.line); i++ {
			r.line[i] = ' '
		}
	case 2:
		r.line = r.line[:0]
	}
}

// privateMode handles DECSET/DECRST: 25 shows or hides the cursor; 47,
// 1047 and 1049 switch screens.
func (r *Renderer) privateMode(set bool, params ansi.Params) {
	for _, p := range params {
		switch p.Param(0) {
		case 25:
			r.hidden = !set
		case 47, 1047, 1049:
			if !r.screenOK {
				continue
			}
			if set && r.screen == nil {
				r.enterScreen()
			} else if !set && r.screen != nil {
				r.leaveScreen()
			}
		}
	}
}

func (r *Renderer) enterScreen() {
	if len(r.line) > 0 {
		r.commit()
	}
	r.releaseBlank()
	r.screen = vt.NewEmulator(r.cols, r.rows)
	r.screen.SetScrollbackSize(0)
	r.shown, r.dirty = "", true
	r.segStart = r.pos + 1
	emu := r.screen
	go func() { // the emulator's answers to queries; it blocks until they are read
		buf := make([]byte, 256)
		for {
			n, err := emu.Read(buf)
			if n > 0 && r.Reply != nil {
				r.Reply(append([]byte(nil), buf[:n]...))
			}
			if err != nil {
				return
			}
		}
	}()
}

func (r *Renderer) leaveScreen() {
	if r.cur != nil && r.escAt >= r.segStart {
		r.feedScreen(r.cur[r.segStart:r.escAt])
	}
	r.snapshot()
	closeEmulator(r.screen)
	r.screen = nil
}

// closeEmulator ends the goroutine reading the emulator's answers. It closes
// the emulator's input pipe rather than calling Close, whose unguarded flag
// races with a Read in progress (vt v0.1.0).
func closeEmulator(e *vt.Emulator) {
	if pw, ok := e.InputPipe().(*io.PipeWriter); ok {
		_ = pw.CloseWithError(io.EOF)
	}
}

// snapshot emits the screen's text when it changed since the last one.
func (r *Renderer) snapshot() {
	if !r.dirty {
		return
	}
	r.dirty = false
	text := screenText(r.screen.String())
	if text == r.shown {
		return
	}
	r.shown = text
	r.emit(ScreenHeader(r.cols, r.rows) + "\n" + text)
}

// screenText cleans the emulator's text: lines without trailing blanks,
// each ending in "\n", no control character, valid UTF-8.
func screenText(s string) string {
	var sb strings.Builder
	for _, ln := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		ln = strings.TrimRight(ln, " ")
		ln = strings.Map(func(c rune) rune {
			if c == '\t' {
				return c
			}
			if unicode.Is(unicode.Cc, c) {
				return -1
			}
			return c
		}, strings.ToValidUTF8(ln, "\uFFFD"))
		sb.WriteString(ln)
		sb.WriteByte('\n')
	}
	return sb.String()
}

var _ io.Writer = (*Renderer)(nil)

// Close releases the emulator of an alternate screen still shown, and emits
// the empty lines held back at the end of the stream.
func (r *Renderer) Close() {
	r.releaseBlank()
	if r.screen != nil {
		closeEmulator(r.screen)
		r.screen = nil
	}
}

// esc handles the ESC sequences the line discipline knows: RIS (ESC c)
// resets the terminal, a clear of its screen.
func (r *Renderer) esc(cmd ansi.Cmd) {
	if r.screen == nil && cmd.Final() == 'c' && cmd.Intermediate() == 0 {
		r.clear()
	}
}
