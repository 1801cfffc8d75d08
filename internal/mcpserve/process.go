package mcpserve

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/toolrpc/toolrpc/wire"
)

// renderProcess writes a process reply as two text blocks: its state,
// reason, prompt and ports on a few lines, then its output. A list is one
// block, a line per process. ok is false for any other value.
func renderProcess(v any) (blocks []string, ok bool) {
	switch r := v.(type) {
	case wire.ProcessList:
		var b strings.Builder
		for _, p := range r.Processes {
			b.WriteString(processHead(p))
		}
		if len(r.Processes) == 0 {
			b.WriteString("no processes\n")
		}
		return []string{b.String()}, true
	case *wire.ProcessReply:
		head := processHead(r.ProcessInfo)
		if r.Matched != "" {
			head += "matched: " + r.Matched + "\n"
		}
		head += fmt.Sprintf("cursor: %d\n", r.Cursor.To)
		out := r.Output
		if out == "" {
			out = "[no new output]"
		}
		return []string{head, out}, true
	}
	return nil, false
}

// processHead is a process's state as a model reads it.
func processHead(p wire.ProcessInfo) string {
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
	return b.String()
}
