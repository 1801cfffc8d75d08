package patch

import (
	"fmt"
	"strings"
)

// Op is what a file section of a patch does.
type Op int

// The three file operations of V4A.
const (
	Add    Op = iota + 1 // *** Add File: the file's whole text
	Delete               // *** Delete File
	Update               // *** Update File, with chunks and an optional *** Move to
)

// Patch is a parsed V4A patch: its file sections in order.
type Patch struct {
	Files []File
}

// File is one file section of a patch.
type File struct {
	Op   Op
	Path string
	// MoveTo is the *** Move to: destination of an Update ("" = none).
	MoveTo string
	// Text is an Add's whole text (each + line and a newline).
	Text string
	// Chunks are an Update's changes, in file order.
	Chunks []Chunk
	// Line is the patch line (1-based) of the section's header.
	Line int
}

// Chunk is one change of an Update: after Anchors (each @@ line, looked
// for in turn below the previous), the Old lines are replaced by New.
type Chunk struct {
	Anchors []string
	Old     []string
	New     []string
	// Kept[i] is the index in Old of New[i] when New[i] is a context line,
	// else -1: context lines keep the file's own bytes.
	Kept []int
	// EOF marks a chunk that must match at the end of the file.
	EOF bool
	// Line is the patch line (1-based) where the chunk starts.
	Line int
}

// SyntaxError is a patch that does not parse; Line is its 1-based patch
// line (0 = the patch as a whole).
type SyntaxError struct {
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string {
	if e.Line == 0 {
		return "invalid patch: " + e.Msg
	}
	return fmt.Sprintf("invalid patch hunk on line %d: %s", e.Line, e.Msg)
}

// The markers of the format.
const (
	beginMarker  = "*** Begin Patch"
	endMarker    = "*** End Patch"
	addMarker    = "*** Add File: "
	deleteMarker = "*** Delete File: "
	updateMarker = "*** Update File: "
	moveMarker   = "*** Move to: "
	eofMarker    = "*** End of File"
)

// splitLines splits text into lines as Rust's str::lines does: on "\n",
// each line without a trailing "\r", no empty last line.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.Split(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// Parse parses a whole patch, "*** Begin Patch" to "*** End Patch", taken
// leniently: surrounding whitespace, padding around the markers, and a
// heredoc wrapper (<<EOF, <<'EOF' or <<"EOF" ... EOF, optionally after the
// word apply_patch) are accepted. A patch that does not parse is a
// *SyntaxError.
func Parse(text string) (*Patch, error) {
	lines := splitLines(strings.TrimSpace(text))
	body, first, err := boundaries(lines)
	if err != nil {
		inner, ok := unwrapHeredoc(lines)
		if !ok {
			return nil, err
		}
		if body, first, err = boundaries(inner); err != nil {
			return nil, err
		}
		first++
	}
	p := &Patch{}
	for i := 0; i < len(body); {
		f, n, err := parseFile(body[i:], first+i)
		if err != nil {
			return nil, err
		}
		p.Files = append(p.Files, f)
		i += n
	}
	return p, nil
}

// boundaries checks the begin and end markers and returns the lines
// between them and the patch line number of the first.
func boundaries(lines []string) ([]string, int, error) {
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != beginMarker {
		return nil, 0, &SyntaxError{Msg: "The first line of the patch must be '" + beginMarker + "'"}
	}
	if len(lines) < 2 || strings.TrimSpace(lines[len(lines)-1]) != endMarker {
		return nil, 0, &SyntaxError{Msg: "The last line of the patch must be '" + endMarker + "'"}
	}
	return lines[1 : len(lines)-1], 2, nil
}

// unwrapHeredoc strips a heredoc wrapper: a first line <<EOF, <<'EOF' or
// <<"EOF" (optionally "apply_patch " before it) and a last line ending in
// EOF.
func unwrapHeredoc(lines []string) ([]string, bool) {
	if len(lines) < 4 {
		return nil, false
	}
	first := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[0]), "apply_patch"))
	switch first {
	case "<<EOF", "<<'EOF'", `<<"EOF"`:
	default:
		return nil, false
	}
	if !strings.HasSuffix(strings.TrimSpace(lines[len(lines)-1]), "EOF") {
		return nil, false
	}
	return lines[1 : len(lines)-1], true
}

// parseFile parses the file section at the start of lines (patch line no)
// and returns it with the number of lines it took.
func parseFile(lines []string, no int) (File, int, error) {
	head := strings.TrimSpace(lines[0])
	switch {
	case strings.HasPrefix(head, addMarker):
		f := File{Op: Add, Path: strings.TrimPrefix(head, addMarker), Line: no}
		n := 1
		var b strings.Builder
		for ; n < len(lines) && strings.HasPrefix(lines[n], "+"); n++ {
			b.WriteString(lines[n][1:])
			b.WriteByte('\n')
		}
		f.Text = b.String()
		return f, n, nil
	case strings.HasPrefix(head, deleteMarker):
		return File{Op: Delete, Path: strings.TrimPrefix(head, deleteMarker), Line: no}, 1, nil
	case strings.HasPrefix(head, updateMarker):
		return parseUpdate(lines, no)
	}
	return File{}, 0, &SyntaxError{Line: no, Msg: fmt.Sprintf("'%s' is not a valid hunk header. "+
		"Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'", head)}
}

// parseUpdate parses an *** Update File section.
func parseUpdate(lines []string, no int) (File, int, error) {
	f := File{Op: Update, Path: strings.TrimPrefix(strings.TrimSpace(lines[0]), updateMarker), Line: no}
	n := 1
	if n < len(lines) && strings.HasPrefix(lines[n], moveMarker) {
		f.MoveTo = strings.TrimPrefix(lines[n], moveMarker)
		n++
	}
	chunks, used, err := parseChunks(lines[n:], no+n, true)
	if err != nil {
		return File{}, 0, err
	}
	if len(chunks) == 0 {
		return File{}, 0, &SyntaxError{Line: no, Msg: fmt.Sprintf("Update file hunk for path '%s' is empty", f.Path)}
	}
	f.Chunks = chunks
	return f, n + used, nil
}

// parseChunks parses chunks up to the next *** line (or the end) and
// returns them with the number of lines used. stopAtStar is false for a
// bare update body (the Responses API's update_file diff), where a line
// starting with * can only be an error.
func parseChunks(lines []string, no int, stopAtStar bool) ([]Chunk, int, error) {
	var chunks []Chunk
	n := 0
	for n < len(lines) {
		if strings.TrimSpace(lines[n]) == "" {
			n++
			continue
		}
		if stopAtStar && strings.HasPrefix(lines[n], "*") {
			break
		}
		c, used, err := parseChunk(lines[n:], no+n, len(chunks) == 0)
		if err != nil {
			return nil, 0, err
		}
		chunks = append(chunks, c)
		n += used
	}
	return chunks, n, nil
}

// parseChunk parses one chunk: its @@ anchors (stacked @@ lines narrow in
// turn; a first chunk may have none), then its lines.
func parseChunk(lines []string, no int, first bool) (Chunk, int, error) {
	c := Chunk{Line: no}
	n := 0
	for n < len(lines) {
		if lines[n] == "@@" {
			n++
		} else if a, ok := strings.CutPrefix(lines[n], "@@ "); ok {
			c.Anchors = append(c.Anchors, a)
			n++
		} else {
			break
		}
	}
	if n == 0 && !first {
		return Chunk{}, 0, &SyntaxError{Line: no, Msg: fmt.Sprintf("Expected update hunk to start with a @@ context marker, got: '%s'", lines[0])}
	}
	if n >= len(lines) {
		return Chunk{}, 0, &SyntaxError{Line: no + n, Msg: "Update hunk does not contain any lines"}
	}
	body := 0
	for ; n < len(lines); n++ {
		l := lines[n]
		if l == eofMarker {
			if body == 0 {
				return Chunk{}, 0, &SyntaxError{Line: no + n, Msg: "Update hunk does not contain any lines"}
			}
			c.EOF = true
			n++
			break
		}
		if !c.addLine(l) {
			if body == 0 {
				return Chunk{}, 0, &SyntaxError{Line: no + n, Msg: fmt.Sprintf("Unexpected line found in update hunk: '%s'. "+
					"Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)", l)}
			}
			break
		}
		body++
	}
	return c, n, nil
}

// addLine adds one diff line to c, reporting false for a line that is not
// one (the start of the next chunk or section).
func (c *Chunk) addLine(l string) bool {
	if l == "" {
		l = " " // an empty line is an empty context line
	}
	switch l[0] {
	case ' ':
		c.Kept = append(c.Kept, len(c.Old))
		c.Old = append(c.Old, l[1:])
		c.New = append(c.New, l[1:])
	case '+':
		c.Kept = append(c.Kept, -1)
		c.New = append(c.New, l[1:])
	case '-':
		c.Old = append(c.Old, l[1:])
	default:
		return false
	}
	return true
}

// ParseUpdateBody parses the diff of a Responses API update_file
// operation: chunks without the patch's begin, end and file markers.
func ParseUpdateBody(diff string) ([]Chunk, error) {
	lines := splitLines(diff)
	chunks, _, err := parseChunks(lines, 1, false)
	if err != nil {
		return nil, err
	}
	if len(chunks) == 0 {
		return nil, &SyntaxError{Msg: "the update_file diff has no changes"}
	}
	return chunks, nil
}

// ParseAddBody returns the text of a Responses API create_file diff: each
// line's leading + removed, each line ended by a newline. A line without
// the + is a *SyntaxError.
func ParseAddBody(diff string) (string, error) {
	var b strings.Builder
	for i, l := range splitLines(diff) {
		rest, ok := strings.CutPrefix(l, "+")
		if !ok {
			return "", &SyntaxError{Line: i + 1, Msg: fmt.Sprintf("every line of a create_file diff starts with '+', got: '%s'", l)}
		}
		b.WriteString(rest)
		b.WriteByte('\n')
	}
	return b.String(), nil
}
