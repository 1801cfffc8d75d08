package methods

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/toolrpc/toolrpc/internal/lineedit"
	"github.com/toolrpc/toolrpc/internal/roots"
	"github.com/toolrpc/toolrpc/internal/textmatch"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/wire"
)

// editorName is Anthropic's text editor tool's name.
const editorName = "str_replace_based_edit_tool"

// editorSnippetLines is the context the reference editor shows around an
// edit.
const editorSnippetLines = 4

// editorMethod is Anthropic's text editor (SPEC §16).
func editorMethod() Method {
	return dialectMethod(Anthropic, editorName, func(Face) string {
		return fmt.Sprintf("Anthropic's text editor: {command: view|create|str_replace|insert, path, ...}. "+
			"view shows a file's lines numbered as cat -n (view_range [start, end], end -1 = to the end; max_characters honoured) "+
			"or a directory's files two levels deep; at most %d lines / %d KB, a marker counting what was cut. "+
			"create writes file_text (replacing a file). str_replace replaces old_str, which must occur exactly once, with new_str: "+
			"matched exactly, then with a CRLF file's endings, then line by line ignoring trailing whitespace, indentation, Unicode punctuation (reported); "+
			"several matches are refused with their line numbers (at most %d), no match with the closest %d lines. "+
			"insert puts insert_text (or new_str) after insert_line (0 = the top). "+
			"Line endings, tabs, a missing final newline, a BOM and the encoding are kept; writes are atomic; files of at most %d MiB. "+
			"Returns {content, is_error}, a tool_result.",
			limits.SearchBudgetLines, limits.SearchBudgetBytes/limits.KB, limits.DialectListedMatches, limits.DialectClosestLines,
			limits.DialectMaxFileBytes/limits.MiB)
	}, wire.InputSchema[wire.TextEditorParams](nil), wire.OutputSchema[wire.ToolResult](nil), editorCall)
}

func editorCall(ctx context.Context, s *Session, call *rpc.Call) DialectReply {
	var p wire.TextEditorParams
	if err := json.Unmarshal(call.Params, &p); err != nil {
		return toolError("Error: bad input: %v", err)
	}
	switch p.Command {
	case "view":
		return editorView(s, p)
	case "create":
		return editorCreate(ctx, s, p)
	case "str_replace":
		return editorReplace(ctx, s, p)
	case "insert":
		return editorInsert(ctx, s, p)
	}
	return toolError("Error: Unrecognized command %s. The allowed commands for the %s tool are: view, create, str_replace, insert", p.Command, editorName)
}

// toolError is an is_error tool_result.
func toolError(format string, args ...any) toolReply {
	return toolReply{Content: fmt.Sprintf(format, args...), IsError: true}
}

// toolFailed is the is_error tool_result for an engine's refusal.
func toolFailed(err error) toolReply { return toolError("Error: %s", modelError(err)) }

// editorView is view: a file's numbered lines or a directory's listing.
func editorView(s *Session, p wire.TextEditorParams) DialectReply {
	rp, err := resolvePath(s, "view", p.Path)
	if err == nil {
		err = sandboxRead(s, rp)
	}
	if err != nil {
		return toolFailed(err)
	}
	if fi, err := os.Stat(rp.Abs); err == nil && fi.IsDir() {
		return editorViewDir(s, rp)
	}
	text, exists, unsaved, err := readViewDoc(s, rp, "view")
	if err != nil {
		return toolFailed(err)
	}
	if !exists {
		return toolError("Error: The path %s does not exist. Please provide a valid path.", p.Path)
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	from, to := 1, len(lines)
	if len(p.ViewRange) > 0 {
		if len(p.ViewRange) != 2 || p.ViewRange[0] < 1 || p.ViewRange[0] > max(len(lines), 1) ||
			p.ViewRange[1] != -1 && (p.ViewRange[1] < p.ViewRange[0] || p.ViewRange[1] > len(lines)) {
			return toolError("Error: Invalid `view_range`: %v. It should be [start, end] with 1 <= start <= end <= %d, or end -1 for the end of the file.", p.ViewRange, len(lines))
		}
		from = p.ViewRange[0]
		if p.ViewRange[1] != -1 {
			to = p.ViewRange[1]
		}
	}
	budget := limits.SearchBudgetBytes
	if p.MaxCharacters != nil && *p.MaxCharacters > 0 && *p.MaxCharacters < budget {
		budget = *p.MaxCharacters
	}
	of := p.Path
	if unsaved {
		of += " (the editor's unsaved buffer, not the file on disk)"
	}
	return toolReply{Content: fmt.Sprintf("Here's the result of running `cat -n` on %s:\n", of) + catN(lines, from, to, budget)}
}

// catN numbers lines from..to as cat -n does, within budget characters and
// limits.SearchBudgetLines lines; what is cut is counted in a marker.
func catN(lines []string, from, to, budget int) string {
	var b strings.Builder
	n := from
	for ; n <= to; n++ {
		l := fmt.Sprintf("%6d\t%s", n, strings.TrimRight(lines[n-1], "\r\n"))
		if b.Len()+len(l)+1 > budget || n-from >= limits.SearchBudgetLines {
			break
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if n <= to {
		chars := 0
		for _, l := range lines[n-1 : to] {
			chars += len(strings.TrimRight(l, "\r\n"))
		}
		fmt.Fprintf(&b, "[... %d more lines (%d characters) not shown: lines %d-%d; view_range [%d, %d] shows them]\n", to-n+1, chars, n, to, n, to)
	}
	return b.String()
}

// editorViewDir lists a directory's files and directories two levels
// deep, hidden ones excluded, within limits.SearchBudgetLines lines.
func editorViewDir(s *Session, rp roots.Path) DialectReply {
	readable := sandboxReadable(s)
	var out []string
	var walk func(dir, rel string, depth int)
	walk = func(dir, rel string, depth int) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			abs := filepath.Join(dir, e.Name())
			if readable != nil && !readable(abs) {
				continue
			}
			out = append(out, filepath.Join(rel, e.Name()))
			if e.IsDir() && depth < 2 {
				walk(abs, filepath.Join(rel, e.Name()), depth+1)
			}
		}
	}
	walk(rp.Abs, rp.Display, 1)
	sort.Strings(out)
	return toolReply{Content: fmt.Sprintf("Here's the files and directories up to 2 levels deep in %s, excluding hidden items:\n%s\n", rp.Display, entryList(out))}
}

// entryList joins a listing's entries, one a line, at most
// limits.SearchBudgetLines of them, then a marker counting the others.
func entryList(entries []string) string {
	if len(entries) <= limits.SearchBudgetLines {
		return strings.Join(entries, "\n")
	}
	return strings.Join(entries[:limits.SearchBudgetLines], "\n") +
		fmt.Sprintf("\n[... %d more entries not shown, of %d]", len(entries)-limits.SearchBudgetLines, len(entries))
}

// editorCreate is create: the file's whole text, atomically.
func editorCreate(ctx context.Context, s *Session, p wire.TextEditorParams) DialectReply {
	if p.FileText == nil {
		return toolError("Error: Parameter `file_text` is required for command: create")
	}
	rp, err := resolveEdit(s, "create", p.Path)
	if err != nil {
		return toolFailed(err)
	}
	defer s.locks.Lock(rp.Abs)()
	var f *dialectDoc // the edit through the editor; nil: the disk
	if d := inEditor(s, rp); d != nil {
		f = &dialectDoc{rp: rp, buf: d}
	} else if err := refuseUnsaved(s, "create", rp); err != nil {
		return toolFailed(err)
	} else if editAllOn(s, rp) {
		if doc, exists, err := readDoc(rp, "create"); routesToEditor(rp, doc, exists, err) {
			f = &dialectDoc{rp: rp, doc: doc, via: true}
		}
	}
	if f != nil {
		if _, err := f.commit(ctx, s, editorMethodName, *p.FileText); err != nil {
			return toolFailed(err)
		}
		return toolReply{Content: "File created successfully at: " + p.Path + bufferNote(true)}
	}
	if _, err := lineedit.Write(ctx, rp.Abs, rp.Display, *p.FileText, rp.Root == roots.Scratch, s.sources); err != nil {
		return toolFailed(err)
	}
	return toolReply{Content: "File created successfully at: " + p.Path}
}

// editorReplace is str_replace.
func editorReplace(ctx context.Context, s *Session, p wire.TextEditorParams) DialectReply {
	if p.OldStr == nil || *p.OldStr == "" {
		return toolError("Error: Parameter `old_str` is required for command: str_replace")
	}
	newStr := ""
	if p.NewStr != nil {
		newStr = *p.NewStr
	}
	doc, unlock, reply := editorOpen(s, p.Path)
	if reply != nil {
		return reply
	}
	defer unlock()
	found := textmatch.Find(doc.Text, *p.OldStr)
	switch len(found.Matches) {
	case 0:
		return toolError("Error: No match found for replacement. Please check your text and try again.%s", closestNote(doc.Text, *p.OldStr))
	case 1:
	default:
		return toolError("Error: Found %d matches for replacement text. Please provide more context to make a unique match.\n%s",
			len(found.Matches), matchLines(found.Matches))
	}
	m := found.Matches[0]
	repl := withEndings(doc.Text, newStr)
	text := doc.Text[:m.Start] + repl + doc.Text[m.End:]
	inBuffer, err := doc.commit(ctx, s, editorMethodName, text)
	if err != nil {
		return toolFailed(err)
	}
	first := m.Line
	last := first + strings.Count(repl, "\n")
	return toolReply{Content: fmt.Sprintf("The file %s has been edited. Here's the result of running `cat -n` on a snippet of %s:\n%s%s"+
		"Review the changes and make sure they are as expected. Edit the file again if necessary.%s",
		p.Path, p.Path, snippet(text, first, last), matchNote(found), bufferNote(inBuffer))}
}

// editorInsert is insert.
func editorInsert(ctx context.Context, s *Session, p wire.TextEditorParams) DialectReply {
	ins := p.InsertText
	if ins == nil {
		ins = p.NewStr // models send new_str for insert too
	}
	if ins == nil || p.InsertLine == nil {
		return toolError("Error: Parameters `insert_line` and `insert_text` are required for command: insert")
	}
	doc, unlock, reply := editorOpen(s, p.Path)
	if reply != nil {
		return reply
	}
	defer unlock()
	text, total := doc.Text, strings.Count(doc.Text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		total++
	}
	n := *p.InsertLine
	if n < 0 || n > total {
		return toolError("Error: Invalid `insert_line` parameter: %d. It should be within the range of lines of the file: [0, %d]", n, total)
	}
	at := 0 // byte offset after line n
	for i := 0; i < n; i++ {
		j := strings.IndexByte(text[at:], '\n')
		if j < 0 {
			at = len(text)
			break
		}
		at += j + 1
	}
	block := withEndings(text, *ins)
	end := lineEnding(text)
	switch {
	case at == len(text) && text != "" && !strings.HasSuffix(text, "\n"):
		block = end + strings.TrimSuffix(block, end) // the file keeps no final newline
	case !strings.HasSuffix(block, "\n"):
		block += end
	}
	newText := text[:at] + block + text[at:]
	inBuffer, err := doc.commit(ctx, s, editorMethodName, newText)
	if err != nil {
		return toolFailed(err)
	}
	return toolReply{Content: fmt.Sprintf("The file %s has been edited. Here's the result of running `cat -n` on a snippet of the edited file:\n%s"+
		"Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.%s",
		p.Path, snippet(newText, n+1, n+strings.Count(strings.TrimSuffix(block, end), "\n")+1), bufferNote(inBuffer))}
}

// editorOpen resolves the file an edit changes, takes its lock and reads
// it under the lock (the editor's buffer when it holds the file, §15): the
// text matched is the text committed over. unlock is nil when the reply is
// set.
func editorOpen(s *Session, path string) (doc *dialectDoc, unlock func(), reply DialectReply) {
	rp, err := resolveEdit(s, "str_replace", path)
	if err != nil {
		return nil, nil, toolFailed(err)
	}
	unlock = s.locks.Lock(rp.Abs)
	doc, err = readEditDoc(s, rp, "str_replace")
	switch {
	case err != nil:
		reply = toolFailed(err)
	case !doc.exists():
		reply = toolError("Error: The path %s does not exist. Please provide a valid path.", path)
	}
	if reply != nil {
		unlock()
		return nil, nil, reply
	}
	return doc, unlock, nil
}

// editorMethodName is the text editor's method, as edit labels name it.
const editorMethodName = Anthropic + "/" + editorName

// lineEnding is text's dominant line ending.
func lineEnding(text string) string {
	crlf := strings.Count(text, "\r\n")
	if crlf > strings.Count(text, "\n")-crlf {
		return "\r\n"
	}
	return "\n"
}

// withEndings returns s with its bare "\n" written as text's dominant line
// ending.
func withEndings(text, s string) string {
	if lineEnding(text) != "\r\n" {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// snippet numbers the lines first-editorSnippetLines..last+editorSnippetLines
// of text as cat -n does.
func snippet(text string, first, last int) string {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	from, to := max(first-editorSnippetLines, 1), min(last+editorSnippetLines, len(lines))
	if to < from {
		return ""
	}
	return catN(lines, from, to, limits.SearchBudgetBytes)
}

// matchLines lists the lines several matches start on.
func matchLines(ms []textmatch.Match) string {
	var nums []string
	for i, m := range ms {
		if i == limits.DialectListedMatches {
			nums = append(nums, fmt.Sprintf("and %d more", len(ms)-i))
			break
		}
		nums = append(nums, fmt.Sprint(m.Line))
	}
	return "The matches start at lines " + strings.Join(nums, ", ") + "."
}

// closestNote shows the file's lines closest to old.
func closestNote(text, old string) string {
	first, window := textmatch.Closest(text, old, limits.DialectClosestLines)
	if len(window) == 0 {
		return "\nThe file is empty."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nThe closest lines in the file (%d-%d):\n", first, first+len(window)-1)
	for i, l := range window {
		fmt.Fprintf(&b, "%6d\t%s\n", first+i, l)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// matchNote reports a match that needed more than the exact bytes.
func matchNote(r textmatch.Result) string {
	switch r.How {
	case textmatch.CRLF:
		return "Note: old_str matched with the file's CRLF line endings; new_str was written with them.\n"
	case textmatch.Lines:
		return fmt.Sprintf("Note: old_str matched only %s; the whole lines it matched were replaced.\n", r.Tol)
	}
	return ""
}
