package mcpserve

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// The text block of a result is written for a model: the numbered lines,
// paths and output a human would read, then the result's notice. Everything
// else of the result (counts, infos, tags) is in structuredContent.

// textFor renders the text block of tool's result, given as its JSON.
func textFor(tool string, result json.RawMessage) (string, error) {
	switch tool {
	case "read", "edit":
		return renderContent(result)
	case "grep":
		return renderGrep(result)
	case "glob":
		return renderGlob(result)
	case "bash":
		return renderBash(result)
	case "write":
		return renderWrite(result)
	}
	return string(result), nil
}

// withNotice appends notice, if any, on its own line.
func withNotice(b *strings.Builder, notice string) string {
	if notice != "" {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		b.WriteString(notice)
	}
	return b.String()
}

func renderContent(result json.RawMessage) (string, error) {
	var r struct {
		Content string `json:"content"`
		Notice  string `json:"notice"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(r.Content)
	return withNotice(&b, r.Notice), nil
}

// renderGrep writes content matches as path:line:text (context lines as
// path-line-text, as rg prints them), files one per line, counts as
// path:count.
func renderGrep(result json.RawMessage) (string, error) {
	var r struct {
		Matches []struct {
			Path    string `json:"path"`
			Line    int    `json:"line"`
			Text    string `json:"text"`
			Context bool   `json:"context"`
		} `json:"matches"`
		Files  json.RawMessage `json:"files"`
		Counts []struct {
			Path  string `json:"path"`
			Count int    `json:"count"`
		} `json:"counts"`
		Notice string `json:"notice"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, m := range r.Matches {
		sep := ":"
		if m.Context {
			sep = "-"
		}
		b.WriteString(m.Path + sep + strconv.Itoa(m.Line) + sep + m.Text + "\n")
	}
	var files []string
	if len(r.Files) > 0 && r.Files[0] == '[' {
		if err := json.Unmarshal(r.Files, &files); err != nil {
			return "", err
		}
	}
	for _, f := range files {
		b.WriteString(f + "\n")
	}
	for _, c := range r.Counts {
		b.WriteString(c.Path + ":" + strconv.Itoa(c.Count) + "\n")
	}
	if b.Len() == 0 && r.Notice == "" {
		return "No matches.", nil
	}
	return withNotice(&b, r.Notice), nil
}

func renderGlob(result json.RawMessage) (string, error) {
	var r struct {
		Matches []string `json:"matches"`
		Notice  string   `json:"notice"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, m := range r.Matches {
		b.WriteString(m + "\n")
	}
	if b.Len() == 0 && r.Notice == "" {
		return "No files matched.", nil
	}
	return withNotice(&b, r.Notice), nil
}

// renderBash writes stdout, then stderr after a "[stderr]" line, each with
// its §6.2 marker (which names the spill file), then how the command ended.
func renderBash(result json.RawMessage) (string, error) {
	var r struct {
		ExitCode *int   `json:"exitCode"`
		Signal   string `json:"signal"`
		Stdout   string `json:"stdout"`
		Stderr   string `json:"stderr"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return "", err
	}
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
	return b.String(), nil
}

func renderWrite(result json.RawMessage) (string, error) {
	var r struct {
		Path       string `json:"path"`
		Tag        string `json:"tag"`
		FileBytes  int    `json:"fileBytes"`
		TotalLines int    `json:"totalLines"`
		Created    bool   `json:"created"`
		Notice     string `json:"notice"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return "", err
	}
	verb := "Replaced"
	if r.Created {
		verb = "Created"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %d lines, %d bytes, tag %s.", verb, r.Path, r.TotalLines, r.FileBytes, r.Tag)
	return withNotice(&b, r.Notice), nil
}
