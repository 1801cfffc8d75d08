package patch

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/toolrpc/toolrpc/limits"
)

// Match is one hunk line sequence (or @@ anchor) found only with a
// tolerance; exact matches are not listed.
type Match struct {
	// Chunk is the 1-based chunk of the file section.
	Chunk int
	// Line is the 1-based file line where the match starts.
	Line int
	// Anchor is set when the match is an @@ anchor's.
	Anchor bool
	// Tol is the tolerance it needed.
	Tol Tolerance
}

// HunkError is a chunk that cannot be applied: Path's chunk Chunk (1-based;
// 0 = the file section as a whole), starting on patch line Line.
type HunkError struct {
	Path  string
	Chunk int
	Line  int
	Msg   string
	// Closest are the file's lines closest to the lines not found (at most
	// limits.DialectClosestLines), from file line ClosestFrom (1-based).
	Closest     []string
	ClosestFrom int
}

func (e *HunkError) Error() string {
	msg := fmt.Sprintf("hunk %d of %s (patch line %d): %s", e.Chunk, e.Path, e.Line, e.Msg)
	if e.Chunk == 0 {
		msg = fmt.Sprintf("%s (patch line %d): %s", e.Path, e.Line, e.Msg)
	}
	if len(e.Closest) > 0 {
		msg += fmt.Sprintf("\nThe closest lines in the file (%d-%d):", e.ClosestFrom, e.ClosestFrom+len(e.Closest)-1)
		for i, l := range e.Closest {
			msg += fmt.Sprintf("\n%6d\t%s", e.ClosestFrom+i, l)
		}
	}
	return msg
}

// lines is a text split into lines, each with its own ending ("\n",
// "\r\n", or "" for a last line without a final newline).
type lines struct {
	text, ends []string
}

// split splits s into lines.
func split(s string) lines {
	var l lines
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			l.text, l.ends = append(l.text, s), append(l.ends, "")
			break
		}
		t, end := s[:i], "\n"
		if strings.HasSuffix(t, "\r") {
			t, end = t[:len(t)-1], "\r\n"
		}
		l.text, l.ends = append(l.text, t), append(l.ends, end)
		s = s[i+1:]
	}
	return l
}

// ending is the dominant line ending: CRLF when more lines end so than in LF.
func (l lines) ending() string {
	crlf, lf := 0, 0
	for _, e := range l.ends {
		switch e {
		case "\r\n":
			crlf++
		case "\n":
			lf++
		}
	}
	if crlf > lf {
		return "\r\n"
	}
	return "\n"
}

// finalNewline reports whether the text ends with a line ending (an empty
// text counts as ending with one: the first line added to it gets one).
func (l lines) finalNewline() bool {
	return len(l.ends) == 0 || l.ends[len(l.ends)-1] != ""
}

// replacement replaces n lines at start with new (Kept as in Chunk).
type replacement struct {
	start, n int
	new      []string
	kept     []int
}

// ApplyChunks applies chunks to text (the file called name in errors) and
// returns the new text and the matches that needed a tolerance. A chunk
// that cannot be applied is a *HunkError and no text is returned.
func ApplyChunks(text, name string, chunks []Chunk) (string, []Match, error) {
	l := split(text)
	var reps []replacement
	var matches []Match
	idx := 0
	for ci, c := range chunks {
		for _, a := range c.Anchors {
			at, tol, ok := Seek(l.text, []string{a}, idx, false)
			if !ok {
				return "", nil, &HunkError{Path: name, Chunk: ci + 1, Line: c.Line, Msg: fmt.Sprintf("Failed to find context '%s' in %s", a, name)}
			}
			if tol != Exact {
				matches = append(matches, Match{Chunk: ci + 1, Line: at + 1, Anchor: true, Tol: tol})
			}
			idx = at + 1
		}
		if len(c.Old) == 0 {
			ins := len(l.text)
			if ins > 0 && l.text[ins-1] == "" {
				ins--
			}
			reps = append(reps, replacement{start: ins, new: c.New, kept: c.Kept})
			continue
		}
		pattern, newl, kept := c.Old, c.New, c.Kept
		at, tol, ok := Seek(l.text, pattern, idx, c.EOF)
		if !ok && pattern[len(pattern)-1] == "" {
			// A last empty line may stand for the file's final newline.
			pattern = pattern[:len(pattern)-1]
			if len(newl) > 0 && newl[len(newl)-1] == "" {
				newl, kept = newl[:len(newl)-1], kept[:len(kept)-1]
			}
			at, tol, ok = Seek(l.text, pattern, idx, c.EOF)
		}
		if !ok {
			from, near := Closest(l.text, c.Old, limits.DialectClosestLines)
			return "", nil, &HunkError{Path: name, Chunk: ci + 1, Line: c.Line,
				Msg: fmt.Sprintf("Failed to find expected lines in %s:\n%s", name, strings.Join(c.Old, "\n")), Closest: near, ClosestFrom: from}
		}
		if tol != Exact {
			matches = append(matches, Match{Chunk: ci + 1, Line: at + 1, Tol: tol})
		}
		reps = append(reps, replacement{start: at, n: len(pattern), new: newl, kept: kept})
		idx = at + len(pattern)
	}
	sort.SliceStable(reps, func(i, j int) bool { return reps[i].start < reps[j].start })
	return l.rebuild(reps), matches, nil
}

// rebuild returns the text with reps (sorted, not overlapping) applied:
// added lines take the dominant ending, kept context lines their own bytes,
// and the final newline's presence or absence stays as it was.
func (l lines) rebuild(reps []replacement) string {
	end := l.ending()
	var out lines
	cur := 0
	for _, r := range reps {
		if r.start < cur { // overlapping chunks: the later one applies after the earlier
			r.start = cur
		}
		out.text, out.ends = append(out.text, l.text[cur:r.start]...), append(out.ends, l.ends[cur:r.start]...)
		for i, t := range r.new {
			if k := r.kept[i]; k >= 0 && k < r.n && r.start+k < len(l.text) {
				out.text, out.ends = append(out.text, l.text[r.start+k]), append(out.ends, l.ends[r.start+k])
				continue
			}
			out.text, out.ends = append(out.text, t), append(out.ends, end)
		}
		cur = min(r.start+r.n, len(l.text))
	}
	out.text, out.ends = append(out.text, l.text[cur:]...), append(out.ends, l.ends[cur:]...)
	var b strings.Builder
	final := l.finalNewline()
	for i, t := range out.text {
		b.WriteString(t)
		e := out.ends[i]
		switch {
		case i < len(out.text)-1 && e == "", i == len(out.text)-1 && final && e == "":
			e = end
		case i == len(out.text)-1 && !final:
			e = ""
		}
		b.WriteString(e)
	}
	return b.String()
}

// Source reads the current text of a file a patch names (its path as the
// patch wrote it); exists is false when there is no such file.
type Source func(name string) (text string, exists bool, err error)

// Change is the outcome of a patch for one path: its new text, or its
// removal.
type Change struct {
	// Path is the path as the patch names it (a move's destination for the
	// moved text).
	Path string
	// Removed marks a path the patch deletes (or moves away from).
	Removed bool
	// Text is the path's new text.
	Text string
	// Existed reports that the path held a file before the patch.
	Existed bool
}

// Summary is one line of the result's file list: A, M or D and a path.
type Summary struct {
	Letter byte
	Path   string
}

// Result is a whole patch applied in memory.
type Result struct {
	// Changes are the final state of every path the patch touches, in the
	// order first touched.
	Changes []Change
	// Summary lists the sections as Codex does: added, then modified, then
	// deleted.
	Summary []Summary
	// Matches are the tolerant matches, per file section path.
	Matches map[string][]Match
	// Replaced lists the paths an Add File or a Move to replaced.
	Replaced []string
}

// Apply applies every section of p in order against read, each section
// seeing the ones before, and returns the final state of every path it
// touches. The first section that cannot be applied is a *HunkError; then
// nothing is returned, so nothing is changed.
func (p *Patch) Apply(read Source) (*Result, error) {
	st := &state{read: read, idx: map[string]int{}}
	res := &Result{Matches: map[string][]Match{}}
	var added, modified, deleted []Summary
	for _, f := range p.Files {
		switch f.Op {
		case Add:
			if err := st.put(f.Path, f.Text, &res.Replaced); err != nil {
				return nil, &HunkError{Path: f.Path, Line: f.Line, Msg: err.Error()}
			}
			added = append(added, Summary{'A', f.Path})
		case Delete:
			c, err := st.get(f.Path)
			if err != nil || c.Removed {
				return nil, &HunkError{Path: f.Path, Line: f.Line, Msg: fmt.Sprintf("Failed to delete file %s: no such file", f.Path)}
			}
			c.Removed, c.Text = true, ""
			deleted = append(deleted, Summary{'D', f.Path})
		case Update:
			dest, err := st.update(f, res)
			if err != nil {
				return nil, err
			}
			modified = append(modified, Summary{'M', dest})
		}
	}
	for _, i := range st.order {
		res.Changes = append(res.Changes, *st.changes[i])
	}
	res.Summary = append(append(added, modified...), deleted...)
	return res, nil
}

// update applies an Update section and returns the path the text ends at.
func (st *state) update(f File, res *Result) (string, error) {
	c, err := st.get(f.Path)
	if err != nil {
		return "", &HunkError{Path: f.Path, Line: f.Line, Msg: err.Error()}
	}
	if c.Removed {
		return "", &HunkError{Path: f.Path, Line: f.Line, Msg: fmt.Sprintf("Failed to read file to update %s: no such file", f.Path)}
	}
	text, matches, err := ApplyChunks(c.Text, f.Path, f.Chunks)
	if err != nil {
		return "", err
	}
	if len(matches) > 0 {
		res.Matches[f.Path] = append(res.Matches[f.Path], matches...)
	}
	if f.MoveTo == "" || st.key(f.MoveTo) == st.key(f.Path) {
		c.Text = text
		return f.Path, nil
	}
	c.Removed, c.Text = true, ""
	if err := st.put(f.MoveTo, text, &res.Replaced); err != nil {
		return "", &HunkError{Path: f.MoveTo, Line: f.Line, Msg: err.Error()}
	}
	return f.MoveTo, nil
}

// state is the patch's view of the files: what the sections before the
// current one made of them.
type state struct {
	read    Source
	idx     map[string]int // key -> index in changes
	changes []*Change
	order   []int
}

// key is the identity of a path as the patch names it.
func (st *state) key(name string) string { return path.Clean(strings.ReplaceAll(name, "\\", "/")) }

// get returns the current state of name, reading it the first time; a
// file that does not exist is an error.
func (st *state) get(name string) (*Change, error) {
	if i, ok := st.idx[st.key(name)]; ok {
		c := st.changes[i]
		if c.Removed {
			return nil, fmt.Errorf("Failed to read file to update %s: no such file", name)
		}
		return c, nil
	}
	text, exists, err := st.read(name)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, fmt.Errorf("Failed to read file to update %s: no such file", name)
	}
	return st.add(name, &Change{Path: name, Text: text, Existed: true}), nil
}

// put gives name the text, whether or not a file is there; a file that was
// there is listed in replaced.
func (st *state) put(name, text string, replaced *[]string) error {
	if i, ok := st.idx[st.key(name)]; ok {
		c := st.changes[i]
		if !c.Removed {
			*replaced = append(*replaced, name)
		}
		c.Removed, c.Text = false, text
		return nil
	}
	_, exists, err := st.read(name)
	if err != nil {
		return err
	}
	if exists {
		*replaced = append(*replaced, name)
	}
	st.add(name, &Change{Path: name, Text: text, Existed: exists})
	return nil
}

// add records c as name's state.
func (st *state) add(name string, c *Change) *Change {
	st.idx[st.key(name)] = len(st.changes)
	st.order = append(st.order, len(st.changes))
	st.changes = append(st.changes, c)
	return c
}
