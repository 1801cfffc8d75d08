package methods

import (
	"fmt"
	"strings"
)

// The tool families a session can offer (SPEC §16). Toolrpc is toolrpc's
// own tools; the others are model dialects: the tools a model family was
// trained on, under their own names, run on toolrpc's engines.
const (
	Toolrpc   = "toolrpc"
	Anthropic = "anthropic"
	OpenAI    = "openai"
	Gemini    = "gemini"
)

// Toolset is the families a session offers, in the order the host named
// them. When two families name a tool alike (toolrpc's and Anthropic's
// bash), the earlier family keeps the name and the later's tool is not
// listed.
type Toolset []string

// DefaultToolset is toolrpc's own tools.
var DefaultToolset = Toolset{Toolrpc}

// ParseToolset parses a toolset: one family or a comma-separated list;
// "" is the default.
func ParseToolset(s string) (Toolset, error) {
	if strings.TrimSpace(s) == "" {
		return DefaultToolset, nil
	}
	return ToolsetOf(strings.Split(s, ","))
}

// ToolsetOf checks the families names and returns them as a Toolset,
// without repeats.
func ToolsetOf(names []string) (Toolset, error) {
	var ts Toolset
	seen := map[string]bool{}
	for _, n := range names {
		n = strings.ToLower(strings.TrimSpace(n))
		switch n {
		case Toolrpc, Anthropic, OpenAI, Gemini:
		default:
			return nil, fmt.Errorf("toolset: unknown family %q (want %s, %s, %s or %s, or a list of them)", n, Toolrpc, Anthropic, OpenAI, Gemini)
		}
		if !seen[n] {
			seen[n] = true
			ts = append(ts, n)
		}
	}
	if len(ts) == 0 {
		return DefaultToolset, nil
	}
	return ts, nil
}

// Offered is one tool a toolset offers: the method and the name the model
// knows it by.
type Offered struct {
	Method Method
	// Name is the tool's name in its family: "str_replace_based_edit_tool",
	// or toolrpc's MCP-style name ("read", "process_start").
	Name string
}

// Offer returns the tools of ts, family by family in ts's order, each
// family's sorted by method name; a name an earlier family took is
// skipped.
func (ts Toolset) Offer() []Offered {
	var out []Offered
	taken := map[string]bool{}
	for _, fam := range ts {
		for _, m := range table {
			if !m.Tool || m.family() != fam {
				continue
			}
			name := m.ModelName
			if name == "" {
				name = strings.ReplaceAll(strings.TrimPrefix(m.Name, "tools/"), "/", "_")
			}
			if taken[name] {
				continue
			}
			taken[name] = true
			out = append(out, Offered{Method: m, Name: name})
		}
	}
	return out
}

// family is the method's family ("" is toolrpc).
func (m Method) family() string {
	if m.Family == "" {
		return Toolrpc
	}
	return m.Family
}
