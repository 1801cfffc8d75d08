package mcpserve

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// processText is what renderProcess reads of a process reply or list.
type processText struct {
	ID       string `json:"id"`
	Label    string `json:"label"`
	State    string `json:"state"`
	Reason   string `json:"reason"`
	ExitCode *int   `json:"exitCode"`
	Signal   string `json:"signal"`
	Prompt   *struct {
		Text string `json:"text"`
		Echo bool   `json:"echo"`
	} `json:"prompt"`
	Ports             []int   `json:"ports"`
	Matched           string  `json:"matched"`
	DescendantsKilled int     `json:"descendantsKilled"`
	Output            *string `json:"output"`
	Cursor            struct {
		To int64 `json:"to"`
	} `json:"cursor"`
	Processes []processText `json:"processes"`
}

// renderProcess writes a process reply as two text blocks: its state,
// reason, prompt and ports on a few lines, then its output. A list is one
// block, a line per process.
func renderProcess(result json.RawMessage) ([]string, error) {
	var r processText
	if err := json.Unmarshal(result, &r); err != nil {
		return nil, err
	}
	if r.Output == nil {
		var b strings.Builder
		for _, p := range r.Processes {
			b.WriteString(processHead(p, false))
		}
		if len(r.Processes) == 0 {
			b.WriteString("no processes\n")
		}
		return []string{b.String()}, nil
	}
	head := processHead(r, true)
	out := *r.Output
	if out == "" {
		out = "[no new output]"
	}
	return []string{head, out}, nil
}

// processHead is a process's state as a model reads it.
func processHead(p processText, full bool) string {
	var b strings.Builder
	name := p.ID
	if p.Label != "" {
		name += " (" + p.Label + ")"
	}
	fmt.Fprintf(&b, "%s: %s, reason %s", name, p.State, p.Reason)
	switch {
	case p.Signal != "":
		b.WriteString(", killed by " + p.Signal)
	case p.ExitCode != nil:
		b.WriteString(", exit code " + strconv.Itoa(*p.ExitCode))
	}
	if p.DescendantsKilled > 0 {
		fmt.Fprintf(&b, ", %d background processes killed", p.DescendantsKilled)
	}
	b.WriteByte('\n')
	if p.Prompt != nil {
		fmt.Fprintf(&b, "prompt: %q", p.Prompt.Text)
		if !p.Prompt.Echo {
			b.WriteString(" (input not echoed: a password prompt)")
		}
		b.WriteByte('\n')
	}
	if len(p.Ports) > 0 {
		ps := make([]string, len(p.Ports))
		for i, x := range p.Ports {
			ps[i] = strconv.Itoa(x)
		}
		b.WriteString("ports: " + strings.Join(ps, ", ") + "\n")
	}
	if full && p.Matched != "" {
		fmt.Fprintf(&b, "matched: %s\n", p.Matched)
	}
	if full {
		fmt.Fprintf(&b, "cursor: %d\n", p.Cursor.To)
	}
	return b.String()
}
