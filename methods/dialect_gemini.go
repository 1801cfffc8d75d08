package methods

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/toolrpc/toolrpc/internal/lineedit"
	"github.com/toolrpc/toolrpc/internal/textmatch"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/wire"
)

// geminiReply is a gemini/* tool's DialectReply: a functionResponse's
// response.
type geminiReply wire.GeminiResult

func (r geminiReply) ModelText() string {
	if r.Error != "" {
		return r.Error
	}
	return r.Output
}
func (r geminiReply) ModelFailed() bool { return r.Error != "" }

// MarshalJSON keeps the wire shape.
func (r geminiReply) MarshalJSON() ([]byte, error) { return json.Marshal(wire.GeminiResult(r)) }

// geminiFailed is the error response for err.
func geminiFailed(err error) geminiReply { return geminiReply{Error: modelError(err)} }

// geminiTools are Gemini CLI's tools: name, description, run.
var geminiTools = []struct {
	name, desc string
	run        func(ctx context.Context, s *Session, p wire.GeminiParams, id json.RawMessage) geminiReply
}{
	{"glob", "Gemini CLI's glob: {pattern, dir_path?} lists matching files, newest first, with toolrpc's ignore rules, at most %[2]d paths.", geminiGlob},
	{"grep_search", "Gemini CLI's grep_search: {pattern (RE2), dir_path?, include?} lists matching lines by file, at most %[2]d lines / %[3]d KB.", geminiGrep},
	{"list_directory", "Gemini CLI's list_directory: {dir_path} lists a directory's entries, directories first, at most %[2]d.", geminiList},
	{"read_file", "Gemini CLI's read_file: {file_path, offset? (0-based line), limit?} returns the file's text, at most %[2]d lines / %[3]d KB a call, saying how to read on when cut.", geminiRead},
	{"replace", "Gemini CLI's replace: {file_path, old_string, new_string, expected_replacements? (default 1)} replaces exactly that many occurrences, matched exactly, then with CRLF endings, then line by line tolerantly (reported); an empty old_string on a missing file creates it. Files of at most %[1]d MiB; line endings, tabs, final newline, BOM and encoding kept; atomic.", geminiReplace},
	{"run_shell_command", "Gemini CLI's run_shell_command: {command, dir_path?} runs bash -c, stdout's head and stderr's tail both kept (at most %[4]d KB each, cuts counted), exit code and signal reported.", geminiShell},
	{"write_file", "Gemini CLI's write_file: {file_path, content} creates or replaces the file atomically, keeping an existing file's encoding.", geminiWrite},
}

// geminiMethods are the gemini/* methods.
func geminiMethods() []Method {
	var ms []Method
	for _, t := range geminiTools {
		run := t.run
		desc := fmt.Sprintf(t.desc, limits.DialectMaxFileBytes/limits.MiB, limits.SearchBudgetLines, limits.SearchBudgetBytes/limits.KB, limits.ShellBudgetBytes/limits.KB) +
			" Older parameter names (absolute_path, path, directory, offset/limit) are accepted. Returns {output} or {error}, a functionResponse's response."
		ms = append(ms, dialectMethod(Gemini, t.name, func(Face) string { return desc },
			wire.InputSchema[wire.GeminiParams](nil), wire.OutputSchema[wire.GeminiResult](nil),
			func(ctx context.Context, s *Session, call *rpc.Call) DialectReply {
				var p wire.GeminiParams
				if err := json.Unmarshal(call.Params, &p); err != nil {
					return geminiReply{Error: "bad input: " + err.Error()}
				}
				return run(ctx, s, p, call.ID)
			}))
	}
	return ms
}

// file is the file path of p under any of its names.
func geminiFile(p wire.GeminiParams) string {
	for _, v := range []string{p.FilePath, p.AbsolutePath, p.Path} {
		if v != "" {
			return v
		}
	}
	return ""
}

// geminiDir is the directory of p under any of its names ("" = the first
// root).
func geminiDir(p wire.GeminiParams) string {
	for _, v := range []string{p.DirPath, p.Directory, p.Path, p.AbsolutePath} {
		if v != "" {
			return v
		}
	}
	return ""
}

// callTool runs toolrpc's own method with params and returns its result
// as JSON: the dialects reach the engines through the same methods.
func callTool(ctx context.Context, s *Session, method string, id json.RawMessage, params any, out any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	m, _ := Lookup(method)
	call := rpc.NewCall(method, id, b, func(string, any) error { return nil })
	v, err := m.Call(ctx, s, call)
	call.Replied()
	if err != nil {
		return err
	}
	raw, err := wire.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}

func geminiRead(ctx context.Context, s *Session, p wire.GeminiParams, id json.RawMessage) geminiReply {
	params := wire.ReadParams{Path: geminiFile(p)}
	if p.Offset != nil {
		params.Offset = wire.Ptr(int64(*p.Offset) + 1)
	} else if p.StartLine != nil {
		params.Offset = wire.Ptr(int64(*p.StartLine))
	}
	if p.Limit != nil {
		params.Limit = wire.Ptr(int64(*p.Limit))
	} else if p.EndLine != nil && p.StartLine != nil {
		params.Limit = wire.Ptr(int64(*p.EndLine - *p.StartLine + 1))
	}
	var res wire.ReadResult
	if err := callTool(ctx, s, "tools/read", id, params, &res); err != nil {
		return geminiFailed(err)
	}
	lines, _, _ := lineedit.ReadShape(res.Content)
	text := strings.Join(lines, "\n")
	if len(lines) > 0 {
		text += "\n"
	}
	if res.Offset+int64(res.LineCount)-1 < res.TotalLines || res.Offset > 1 {
		first, last := res.Offset, res.Offset+int64(res.LineCount)-1
		text = fmt.Sprintf("IMPORTANT: The file content has been truncated.\nStatus: Showing lines %d-%d of %d total lines.\n"+
			"Action: To read more of the file, you can use the 'offset' and 'limit' parameters in a subsequent 'read_file' call. "+
			"For example, to read the next section of the file, use offset: %d.\n\n--- FILE CONTENT (truncated) ---\n%s", first, last, res.TotalLines, last, text)
	}
	if len(res.ClippedLines) > 0 {
		text += fmt.Sprintf("\n[lines %v were longer than %d characters and are shown clipped]\n", res.ClippedLines, limits.MaxLineChars)
	}
	return geminiReply{Output: text}
}

func geminiWrite(ctx context.Context, s *Session, p wire.GeminiParams, id json.RawMessage) geminiReply {
	if p.Content == nil {
		return geminiReply{Error: "The 'content' parameter is required."}
	}
	var res wire.WriteResult
	if err := callTool(ctx, s, "tools/write", id, wire.WriteParams{Path: geminiFile(p), Content: p.Content}, &res); err != nil {
		return geminiFailed(err)
	}
	if res.Created {
		return geminiReply{Output: "Successfully created and wrote to new file: " + geminiFile(p) + "."}
	}
	return geminiReply{Output: "Successfully overwrote file: " + geminiFile(p) + "."}
}

func geminiReplace(ctx context.Context, s *Session, p wire.GeminiParams, id json.RawMessage) geminiReply {
	name := geminiFile(p)
	if p.OldString == nil || p.NewString == nil {
		return geminiReply{Error: "The 'old_string' and 'new_string' parameters are required."}
	}
	want := 1
	if p.ExpectedReplacements != nil {
		want = *p.ExpectedReplacements
	}
	rp, err := resolveEdit(s, "replace", name)
	if err != nil {
		return geminiFailed(err)
	}
	defer s.locks.Lock(rp.Abs)()
	doc, err := readEditDoc(s, rp, "replace")
	if err != nil {
		return geminiFailed(err)
	}
	if !doc.exists() {
		if *p.OldString != "" {
			return geminiReply{Error: fmt.Sprintf("File not found: %s. Cannot apply edit. Use an empty old_string to create a new file.", name)}
		}
		if _, err := doc.commit(ctx, s, geminiReplaceName, *p.NewString); err != nil {
			return geminiFailed(err)
		}
		return geminiReply{Output: "Created new file: " + name + " with provided content."}
	}
	if *p.OldString == "" {
		return geminiReply{Error: fmt.Sprintf("Failed to edit. Attempted to create a file that already exists: %s", name)}
	}
	found := textmatch.Find(doc.Text, *p.OldString)
	if n := len(found.Matches); n != want {
		if n == 0 {
			return geminiReply{Error: fmt.Sprintf("Failed to edit, 0 occurrences found for old_string in %s. No edits made. "+
				"The exact text in old_string was not found. Ensure you're not escaping content incorrectly and check whitespace, indentation, and context. Use read_file tool to verify.%s",
				name, closestNote(doc.Text, *p.OldString))}
		}
		return geminiReply{Error: fmt.Sprintf("Failed to edit, Expected %d occurrence(s) but found %d for old_string in file: %s. %s", want, n, name, matchLines(found.Matches))}
	}
	repl := withEndings(doc.Text, *p.NewString)
	var b strings.Builder
	last := 0
	for _, m := range found.Matches {
		b.WriteString(doc.Text[last:m.Start])
		b.WriteString(repl)
		last = m.End
	}
	b.WriteString(doc.Text[last:])
	inBuffer, err := doc.commit(ctx, s, geminiReplaceName, b.String())
	if err != nil {
		return geminiFailed(err)
	}
	return geminiReply{Output: strings.TrimSpace(fmt.Sprintf("Successfully modified file: %s (%d replacements).\n%s", name, want, matchNote(found)) + bufferNote(inBuffer))}
}

func geminiShell(ctx context.Context, s *Session, p wire.GeminiParams, id json.RawMessage) geminiReply {
	params := wire.BashParams{Command: p.Command}
	if d := geminiDir(p); d != "" {
		params.Cwd = &d
	}
	res, timedOut, err := shellRun(params).run(ctx, s, id)
	if err != nil {
		return geminiFailed(err)
	}
	none := func(v string) string {
		if v == "" {
			return "(empty)"
		}
		return v
	}
	exit, signal, errText := "(none)", "(none)", "(none)"
	if res.ExitCode != nil {
		exit = fmt.Sprint(*res.ExitCode)
	}
	if res.Signal != "" {
		signal = res.Signal
	}
	if timedOut {
		errText = "the command timed out; its process tree was killed"
	}
	dir := geminiDir(p)
	if dir == "" {
		dir = "(root)"
	}
	return geminiReply{Output: fmt.Sprintf("Command: %s\nDirectory: %s\nStdout: %s\nStderr: %s\nError: %s\nExit Code: %s\nSignal: %s",
		p.Command, dir, none(res.Stdout), none(res.Stderr), errText, exit, signal)}
}

func geminiGlob(ctx context.Context, s *Session, p wire.GeminiParams, id json.RawMessage) geminiReply {
	var res wire.GlobResult
	if err := callTool(ctx, s, "tools/glob", id, wire.GlobParams{Pattern: p.Pattern, Path: geminiDir(p)}, &res); err != nil {
		return geminiFailed(err)
	}
	if res.Count == 0 {
		return geminiReply{Output: fmt.Sprintf("No files found matching pattern \"%s\"", p.Pattern)}
	}
	text := fmt.Sprintf("Found %d file(s) matching \"%s\", sorted by modification time (newest first):\n%s", res.Count, p.Pattern, strings.Join(res.Matches, "\n"))
	if res.Notice != "" {
		text += "\n" + res.Notice
	}
	return geminiReply{Output: text}
}

func geminiGrep(ctx context.Context, s *Session, p wire.GeminiParams, id json.RawMessage) geminiReply {
	pattern := p.Pattern
	var res wire.GrepContentResult
	if err := callTool(ctx, s, "tools/grep", id, wire.GrepParams{Pattern: &pattern, Path: geminiDir(p), Glob: p.Include, OutputMode: "content"}, &res); err != nil {
		return geminiFailed(err)
	}
	if res.Count == 0 {
		return geminiReply{Output: fmt.Sprintf("No matches found for pattern \"%s\".", p.Pattern)}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Found %d matches for pattern \"%s\":\n---\n", res.Count, p.Pattern)
	cur := ""
	for _, m := range res.Matches {
		if m.Path != cur {
			if cur != "" {
				b.WriteString("---\n")
			}
			cur = m.Path
			fmt.Fprintf(&b, "File: %s\n", m.Path)
		}
		fmt.Fprintf(&b, "L%d: %s\n", m.Line, m.Text)
	}
	b.WriteString("---")
	if res.Notice != "" {
		b.WriteString("\n" + res.Notice)
	}
	return geminiReply{Output: b.String()}
}

func geminiList(_ context.Context, s *Session, p wire.GeminiParams, _ json.RawMessage) geminiReply {
	rp, err := resolvePath(s, "list_directory", geminiDir(p))
	if err == nil {
		err = sandboxRead(s, rp)
	}
	if err != nil {
		return geminiFailed(err)
	}
	ents, err := os.ReadDir(rp.Abs)
	if err != nil {
		return geminiReply{Error: fmt.Sprintf("Error listing directory: %v", err)}
	}
	readable := sandboxReadable(s)
	var dirs, files []string
	for _, e := range ents {
		if readable != nil && !readable(rp.Abs+string(os.PathSeparator)+e.Name()) {
			continue
		}
		if e.IsDir() {
			dirs = append(dirs, "[DIR] "+e.Name())
		} else {
			files = append(files, e.Name())
		}
	}
	sort.Strings(dirs)
	sort.Strings(files)
	return geminiReply{Output: fmt.Sprintf("Directory listing for %s:\n%s", rp.Display, entryList(append(dirs, files...)))}
}

// geminiReplaceName is replace's method, as edit labels name it.
const geminiReplaceName = Gemini + "/replace"
