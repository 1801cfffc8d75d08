package mcpserve

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/toolrpc/toolrpc/wire"
)

// The text block of a result is written for a model: the numbered lines,
// paths and output a human would read, then the result's notice. Everything
// else of the result (counts, infos, tags) is in structuredContent.

// textFor renders the text block of a tool's result, from its wire value.
func textFor(v any) string {
	switch r := v.(type) {
	case *wire.ReadResult:
		return withNotice(r.Content, r.Notice)
	case *wire.EditResult:
		return withNotice(r.Content, r.Notice)
	case wire.GrepResult:
		return renderGrep(r)
	case wire.GlobResult:
		return renderGlob(r)
	case *wire.BashResult:
		return renderBash(r)
	case *wire.WriteResult:
		return renderWrite(r)
	}
	b, _ := wire.Marshal(v)
	return string(b)
}

// withNotice appends notice, if any, on its own line.
func withNotice(text, notice string) string {
	if notice == "" {
		return text
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text + notice
}

// renderGrep writes content matches as path:line:text (context lines as
// path-line-text, as rg prints them), files one per line, counts as
// path:count.
func renderGrep(r wire.GrepResult) string {
	var b strings.Builder
	if r.Content != nil {
		for _, m := range r.Content.Matches {
			sep := ":"
			if m.Context {
				sep = "-"
			}
			b.WriteString(m.Path + sep + strconv.Itoa(m.Line) + sep + m.Text + "\n")
		}
	}
	if r.Files != nil {
		for _, f := range r.Files.Files {
			b.WriteString(f + "\n")
		}
	}
	if r.Counts != nil {
		for _, c := range r.Counts.Counts {
			b.WriteString(c.Path + ":" + strconv.Itoa(c.Count) + "\n")
		}
	}
	if b.Len() == 0 && r.Notice() == "" {
		return "No matches."
	}
	return withNotice(b.String(), r.Notice())
}

func renderGlob(r wire.GlobResult) string {
	if len(r.Matches) == 0 && r.Notice == "" {
		return "No files matched."
	}
	var b strings.Builder
	for _, m := range r.Matches {
		b.WriteString(m + "\n")
	}
	return withNotice(b.String(), r.Notice)
}

// renderBash writes stdout, then stderr after a "[stderr]" line, each with
// its §6.2 marker (which names the spill file), then how the command ended
// and, in a session, what happened to its state (SPEC §6.7).
func renderBash(r *wire.BashResult) string {
	var b strings.Builder
	b.WriteString(r.Stdout)
	if r.Stderr != "" {
		if b.Len() > 0 && !strings.HasSuffix(r.Stdout, "\n") {
			b.WriteByte('\n')
		}
		b.WriteString("[stderr]\n")
		b.WriteString(r.Stderr)
	}
	if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
		b.WriteByte('\n')
	}
	switch {
	case r.Signal != "":
		b.WriteString("[killed by " + r.Signal + "]")
	case r.ExitCode != nil:
		b.WriteString("[exit code " + strconv.Itoa(*r.ExitCode) + "]")
	}
	if r.Session != nil && r.Session.Notice != "" {
		b.WriteString("\n[session " + r.Session.Name + ": " + r.Session.Notice + "]")
	}
	return b.String()
}

func renderWrite(r *wire.WriteResult) string {
	verb := "Replaced"
	if r.Created {
		verb = "Created"
	}
	lines := "lines"
	if r.TotalLines == 1 {
		lines = "line"
	}
	return withNotice(fmt.Sprintf("%s %s: %d %s, %d bytes, tag %s.", verb, r.Path, r.TotalLines, lines, r.FileBytes, r.Tag), r.Notice)
}
