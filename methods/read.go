package methods

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/lineindex"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/sourceset"
	"github.com/toolrpc/toolrpc/walk"
)

// readLinePrefix is how many bytes of a line Read looks at: enough for
// MaxLineChars+1 whole characters however wide, so a longer line is always
// seen to be clipped and the character cut by the prefix is never shown.
const readLinePrefix = utf8.UTFMax * (limits.MaxLineChars + 2)

// readParams are the params of tools/read (SPEC §4).
type readParams struct {
	Path   *string `json:"path"`
	Offset *int64  `json:"offset"`
	Limit  *int64  `json:"limit"`
}

// readResult is ReadResult of SPEC §4.
type readResult struct {
	Path         string    `json:"path"`
	Root         walk.Kind `json:"root"`
	Content      string    `json:"content"`
	Tag          string    `json:"tag"`
	Offset       int64     `json:"offset"`
	LineCount    int       `json:"lineCount"`
	TotalLines   int64     `json:"totalLines"`
	FileBytes    int64     `json:"fileBytes"`
	Truncated    bool      `json:"truncated"`
	ClippedLines []int64   `json:"clippedLines,omitempty"`
	Notice       string    `json:"notice,omitempty"`
}

// readBinaryData is the data of a TOOL_BINARY_CONTENT error.
type readBinaryData struct {
	Path      string `json:"path"`
	FileBytes int64  `json:"fileBytes"`
	Reason    string `json:"reason"`
}

func init() {
	register(Method{
		Name: "tools/read",
		Tool: true,
		Description: fmt.Sprintf("Reads a text file of any size as numbered lines (\"N:text\") under a \"[path#TAG]\" header; "+
			"TAG names this version of the file for tools/edit. Returns at most %d lines by default (max %d), "+
			"starting at offset (the first line shown, counting from one), and stops early before the content passes %d KB; "+
			"lines longer than %d characters are clipped and listed in clippedLines. "+
			"totalLines and fileBytes are always reported and notice names the next offset, so page with offset/limit "+
			"instead of reading whole files through the shell. Binary files (by extension, or a NUL byte or more than %d%% "+
			"non-printable bytes in the first %d bytes) are refused with TOOL_BINARY_CONTENT.",
			limits.ReadDefaultLimit, limits.ReadMaxLimit, limits.SearchBudgetBytes/limits.KB, limits.MaxLineChars,
			limits.BinaryNonPrintablePercent, limits.SniffBytes),
		InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","required":["path"],"additionalProperties":false,"properties":{`+
			`"path":{"type":"string","description":"file path, relative to the first workspace root or absolute"},`+
			`"offset":{"type":"integer","minimum":1,"default":1,"description":"first line to return, 1-based"},`+
			`"limit":{"type":"integer","minimum":1,"maximum":%d,"default":%d,"description":"number of lines to return"}}}`,
			limits.ReadMaxLimit, limits.ReadDefaultLimit)),
		Call: readCall,
	})
}

// readDecode decodes and validates the params: unknown fields, wrong types and
// out-of-range numbers are INVALID_ARGUMENT, never clamped.
func readDecode(call *rpc.Call) (path string, offset, limit int64, err error) {
	var p readParams
	if err := call.Decode(&p); err != nil {
		return "", 0, 0, err
	}
	if p.Path == nil || *p.Path == "" {
		return "", 0, 0, rpc.Errorf(rpc.InvalidArgument, "read: path is required")
	}
	offset, limit = 1, limits.ReadDefaultLimit
	if p.Offset != nil {
		offset = *p.Offset
	}
	if p.Limit != nil {
		limit = *p.Limit
	}
	if offset < 1 {
		return "", 0, 0, rpc.Errorf(rpc.InvalidArgument, "read: offset %d is out of range: lines are numbered from 1", offset)
	}
	if limit < 1 || limit > limits.ReadMaxLimit {
		return "", 0, 0, rpc.Errorf(rpc.InvalidArgument, "read: limit %d is out of range 1..%d", limit, limits.ReadMaxLimit)
	}
	return *p.Path, offset, limit, nil
}

func readCall(ctx context.Context, s *Session, call *rpc.Call) (any, error) {
	path, offset, limit, err := readDecode(call)
	if err != nil {
		return nil, err
	}
	rp, err := resolvePath(s, "read", path)
	if err != nil {
		return nil, err
	}
	res, err := readFile(ctx, s, rp, path, offset, limit)
	if err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return nil, rpc.Errorf(rpc.Cancelled, "read %s: cancelled", rp.Display)
	}
	return res, err
}

// readFile reads the window of the resolved file rp; asked is the path as the
// caller gave it.
func readFile(ctx context.Context, s *Session, rp walk.Path, asked string, offset, limit int64) (*readResult, error) {
	if !rp.Exists {
		return nil, readNotFound(s, rp)
	}
	// Stat first so a FIFO or device is refused before an open could block.
	fi, err := os.Stat(rp.Abs)
	if err != nil {
		return nil, readOpenError(s, rp, err)
	}
	if err := readCheckMode(rp, fi); err != nil {
		return nil, err
	}
	for _, name := range []string{asked, rp.Abs} {
		if reason := walk.NameReason(name); reason != "" {
			return nil, readBinary(rp, fi.Size(), reason)
		}
	}
	// O_NONBLOCK: should the path have become a FIFO since the Stat, the open
	// still returns at once and the Fstat below refuses it.
	f, err := os.OpenFile(rp.Abs, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, readOpenError(s, rp, err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, fmt.Errorf("read %s: %w", rp.Display, err)
	}
	if err := readCheckMode(rp, fi); err != nil {
		return nil, err
	}
	var (
		ix  *lineindex.Index
		tag string
		w   *readWindow
		cut bool // an unsized file went on past UnsizedFileMaxBytes
	)
	// The index, the window and the bytes must all come from one version of
	// the file: a rewrite in place during the pass or the scan shows up as a
	// changed size, mtime or ctime of the open file, and the attempt is redone.
	for attempt := 0; ; attempt++ {
		binary, reason, err := walk.SniffFile(f)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", rp.Display, err)
		}
		if binary {
			return nil, readBinary(rp, fi.Size(), reason)
		}
		var src io.ReaderAt = f
		if fi.Size() == 0 { // /proc files: read to EOF, never cached by identity (SPEC §4)
			var data []byte
			if data, cut, err = lineindex.ReadUnsized(f, limits.UnsizedFileMaxBytes); err == nil {
				src = bytes.NewReader(data)
				ix, err = lineindex.Build(ctx, bytes.NewReader(data))
			}
		} else {
			ix, err = readIndexes(s).Index(ctx, f, fi)
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", rp.Display, err)
		}
		tag = sourceset.TagSum(ix.CRC)
		w = newReadWindow(rp.Display, tag, offset, limit)
		if err := ix.Scan(ctx, src, offset, readLinePrefix, w.add); err != nil {
			return nil, fmt.Errorf("read %s: %w", rp.Display, err)
		}
		after, err := f.Stat()
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", rp.Display, err)
		}
		if sameVersion(fi, after) {
			break
		}
		if attempt+1 >= limits.ReadChangedRetries {
			return nil, rpc.Errorf(rpc.IOError, "read %s: the file kept changing while it was read (%d attempts); read it again", rp.Display, limits.ReadChangedRetries)
		}
		fi = after
	}
	w.flushRun()
	for _, r := range w.runs {
		s.Sources.Add(rp.Abs, tag, int(r[0]), int(r[1]))
	}
	return &readResult{
		Path:         rp.Display,
		Root:         rp.Root,
		Content:      w.content.String(),
		Tag:          tag,
		Offset:       offset,
		LineCount:    w.count,
		TotalLines:   ix.Lines,
		FileBytes:    ix.Size,
		Truncated:    w.budget != "" || len(w.clipped) > 0,
		ClippedLines: w.clipped,
		Notice:       w.notice(ix.Lines) + readUnsizedNotice(cut),
	}, nil
}

// readUnsizedNotice names the cut of a file that reports size 0 (SPEC §4).
func readUnsizedNotice(cut bool) string {
	if !cut {
		return ""
	}
	return fmt.Sprintf(" The file reports size 0; only its first %d MiB were read.", limits.UnsizedFileMaxBytes/limits.MiB)
}

// readIndexes returns the session's line index cache.
func readIndexes(s *Session) *lineindex.Cache {
	return s.lazy("read.lineindex", func() any { return lineindex.NewCache(limits.LineIndexCacheBytes) }).(*lineindex.Cache)
}

// readCheckMode refuses directories and anything that is not a regular file.
func readCheckMode(rp walk.Path, fi fs.FileInfo) error {
	switch m := fi.Mode(); {
	case m.IsDir():
		return rpc.Errorf(rpc.IsDirectory, "read %s: is a directory; use tools/glob to list it", rp.Display)
	case !m.IsRegular():
		return rpc.Errorf(rpc.InvalidArgument, "read %s: not a regular file (%s); only regular files can be read", rp.Display, readFileType(m)).
			WithData(map[string]string{"path": rp.Display, "fileType": readFileType(m)})
	}
	return nil
}

func readFileType(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "irregular file"
}

func readBinary(rp walk.Path, size int64, reason string) error {
	return rpc.Errorf(rpc.BinaryContent, "read %s: binary content (%s)", rp.Display, reason).
		WithData(readBinaryData{Path: rp.Display, FileBytes: size, Reason: reason})
}

func readOpenError(s *Session, rp walk.Path, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return readNotFound(s, rp)
	case errors.Is(err, fs.ErrPermission):
		return rpc.Errorf(rpc.PermissionDenied, "read %s: %v", rp.Display, errors.Unwrap(err))
	}
	return fmt.Errorf("read %s: %w", rp.Display, err)
}

// readNotFound is the NOT_FOUND error, with up to ReadMaxSuggestions similar
// names of the same directory in data.suggestions.
func readNotFound(s *Session, rp walk.Path) error {
	sugg := readSuggest(s.Roots, rp.Abs)
	msg := fmt.Sprintf("read %s: no such file", rp.Display)
	if len(sugg) > 0 {
		msg += "; did you mean " + strings.Join(sugg, ", ") + "?"
	}
	return rpc.Errorf(rpc.NotFound, "%s", msg).WithData(map[string]any{"path": rp.Display, "suggestions": sugg})
}

// readSuggest returns the display paths of up to ReadMaxSuggestions entries of
// abs's directory whose names are close to abs's base name.
func readSuggest(roots *walk.Roots, abs string) []string {
	dir, base := filepath.Split(abs)
	d, err := os.Open(dir)
	if err != nil {
		return []string{}
	}
	defer d.Close()
	names, _ := d.Readdirnames(limits.ReadSuggestScanEntries)
	type cand struct {
		name  string
		score int
	}
	var cands []cand
	for _, n := range names {
		if sc, ok := readSimilarity(base, n); ok {
			cands = append(cands, cand{n, sc})
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].score != cands[j].score {
			return cands[i].score < cands[j].score
		}
		return cands[i].name < cands[j].name
	})
	out := []string{}
	for _, c := range cands {
		if len(out) == limits.ReadMaxSuggestions {
			break
		}
		p, err := roots.Classify(filepath.Join(dir, c.name))
		if err != nil {
			continue
		}
		out = append(out, p.Display)
	}
	return out
}

// readSimilarity scores how close name is to want (lower is closer): their
// edit distance ignoring case. name is similar when that distance is at most a
// third of want's length, or when the two share a stem (another extension) or
// one is a prefix of the other.
func readSimilarity(want, name string) (int, bool) {
	w, n := strings.ToLower(want), strings.ToLower(name)
	wr, nr := []rune(w), []rune(n)
	d := readEditDistance(wr, nr, max(len(wr), len(nr)))
	stem := func(s string) string { return strings.TrimSuffix(s, filepath.Ext(s)) }
	switch {
	case d <= max(1, len(wr)/3):
	case stem(w) != "" && stem(w) == stem(n):
	case len(w) >= 3 && len(n) >= 3 && (strings.HasPrefix(n, w) || strings.HasPrefix(w, n)):
	default:
		return 0, false
	}
	return d, true
}

// readEditDistance is the edit distance of a and b counting an insertion,
// deletion, substitution or swap of two adjacent characters as one (optimal
// string alignment), or bound+1 when it is larger than bound.
func readEditDistance(a, b []rune, bound int) int {
	if d := len(a) - len(b); d > bound || -d > bound {
		return bound + 1
	}
	pprev := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], pprev[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > bound {
			return bound + 1
		}
		pprev, prev, cur = prev, cur, pprev
	}
	return prev[len(b)]
}

// readWindow assembles the content of one Read result.
type readWindow struct {
	offset, limit int64
	content       bytes.Buffer
	count         int
	clipped       []int64
	clippedLong   int // clipped for length
	lossy         int // shown with U+FFFD
	budget        string
	runs          [][2]int64 // whole lines, for the source set
	run           [2]int64   // current run; run[0] == 0 when none
	num           []byte
}

func newReadWindow(display, tag string, offset, limit int64) *readWindow {
	w := &readWindow{offset: offset, limit: limit}
	w.content.Grow(min(limits.SearchBudgetBytes, 4*limits.KB))
	w.content.WriteString("[" + display + "#" + tag + "]\n")
	return w
}

// add formats line no; it is the lineindex.LineFunc of the scan.
func (w *readWindow) add(no int64, line []byte, long bool) bool {
	text, clipped, lossy := line, long, false
	if long || len(line) > limits.MaxLineChars || !utf8.Valid(line) {
		// Only such lines can need clipping or repair (a line has no more
		// characters than bytes); the rest are shown as they are.
		var s string
		s, clipped, lossy = limits.ClipLine(line)
		text, clipped = []byte(s), clipped || long
	}
	w.num = strconv.AppendInt(w.num[:0], no, 10)
	size := len(w.num) + 1 + len(text) + 1
	if w.content.Len()+size > limits.SearchBudgetBytes {
		w.budget = fmt.Sprintf("the %d KB result budget", limits.SearchBudgetBytes/limits.KB)
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
	if int64(w.count) >= w.limit {
		return false
	}
	if w.count >= limits.SearchBudgetLines {
		w.budget = fmt.Sprintf("the %d-line result budget", limits.SearchBudgetLines)
		return false
	}
	return true
}

func (w *readWindow) flushRun() {
	if w.run[0] != 0 {
		w.runs = append(w.runs, w.run)
		w.run = [2]int64{}
	}
}

// notice says what the window holds and how to get the rest; "" when the
// whole file was shown as is.
func (w *readWindow) notice(total int64) string {
	var parts []string
	switch {
	case total == 0:
		parts = append(parts, "The file is empty (0 lines).")
	case w.offset > total:
		parts = append(parts, fmt.Sprintf("Offset %d is past the end of the file, which has %d lines.", w.offset, total))
	default:
		first, last := w.offset, w.offset+int64(w.count)-1
		span := fmt.Sprintf("Lines %d–%d of %d.", first, last, total)
		if w.count == 0 {
			span = fmt.Sprintf("No line of %d fits.", total)
		}
		switch {
		case w.budget != "":
			parts = append(parts, fmt.Sprintf("%s %s stopped the window after %d of the %d requested lines. Next: offset=%d.",
				span, readCapitalize(w.budget), w.count, w.limit, last+1))
		case last < total:
			parts = append(parts, fmt.Sprintf("%s Next: offset=%d.", span, last+1))
		case first > 1:
			parts = append(parts, fmt.Sprintf("%s End of file.", span))
		}
	}
	if w.clippedLong > 0 {
		parts = append(parts, fmt.Sprintf("%s longer than %d characters clipped (see clippedLines); clipped lines cannot be edited.",
			readPlural(w.clippedLong, "line", "lines"), limits.MaxLineChars))
	}
	if w.lossy > 0 {
		parts = append(parts, fmt.Sprintf("%s with bytes that are not valid UTF-8, shown as U+FFFD and counted as clipped.",
			readPlural(w.lossy, "line", "lines")))
	}
	return strings.Join(parts, " ")
}

func readCapitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func readPlural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// sameVersion reports whether two stats of one open file show the same
// version: same size, modification time and status-change time.
func sameVersion(a, b fs.FileInfo) bool {
	if a.Size() != b.Size() || !a.ModTime().Equal(b.ModTime()) {
		return false
	}
	sa, okA := a.Sys().(*syscall.Stat_t)
	sb, okB := b.Sys().(*syscall.Stat_t)
	return okA && okB && sa.Ctim == sb.Ctim
}
