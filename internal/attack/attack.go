// Package attack reads the sandbox attack suite (SPEC §14): one file per
// attempt to get out of a sandbox, each the same for every sandbox it runs
// in, so that toolrpc's conformance tests and the side-by-side run against
// other sandboxes (cmd/toolrpc-attack) judge one text.
//
// A file is a txtar-style archive: a comment whose "Key: value" lines are
// its fields (Rows, Section, Users, Peers, Workspace, Kind, Gap), then "-- name --" sections:
//
//	-- policy.json --   optional: the sandbox policy (initializationOptions.sandbox)
//	-- setup.sh --      optional: run by the host before, outside the sandbox
//	-- attack.sh --     run inside the sandbox
//	-- after.sh --      optional: the host's next act, outside (git status, ...)
//	-- check.sh --      outside: exit 0 = held, else escaped; prints why
//
// The scripts run under bash with cwd = $WS and the variables WS (the
// workspace, a git repository), HOME (a home holding .ssh/id_ed25519,
// .aws/credentials and .bashrc), OUTSIDE (a directory no policy makes
// writable, holding f) and MARK (a token unique to the run).
package attack

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Case is one attack of the suite.
type Case struct {
	// Name is the file's base name without .txtar.
	Name string
	// Comment is the text before the first section.
	Comment string
	// Policy is policy.json decoded, or nil.
	Policy map[string]any
	// Setup, Attack, After and Check are the scripts; Attack and Check are
	// never empty.
	Setup, Attack, After, Check string
}

// Field returns the value of the comment's "key:" line, or "".
func (c Case) Field(key string) string {
	for line := range strings.SplitSeq(c.Comment, "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// Users is who the server runs as for this attack: "both" (the default),
// "root" or "unprivileged".
func (c Case) Users() string {
	if u := c.Field("Users"); u != "" {
		return u
	}
	return "both"
}

// Workspace is the directory the attack's box is made in: its Workspace:
// line, default /var/tmp (outside /tmp, which every policy makes writable).
func (c Case) Workspace() string {
	if w := c.Field("Workspace"); w != "" {
		return w
	}
	return "/var/tmp"
}

// Works reports whether the file checks that legitimate work goes on under
// the sandbox (its Kind: line is "works") rather than an attack: its check
// passes when the work succeeded.
func (c Case) Works() bool { return c.Field("Kind") == "works" }

// Gap is the comment's Gap: line: why toolrpc does not hold this attack, as
// docs/sandbox.md states it, or "" when it must hold (then a TestEscape_*
// test runs it).
func (c Case) Gap() string { return c.Field("Gap") }

// ForPeers reports whether the attack applies to any command sandbox, not
// only to toolrpc's own server (its Peers: line is "yes").
func (c Case) ForPeers() bool { return c.Field("Peers") == "yes" }

// Parse reads one attack file's text.
func Parse(name, text string) (Case, error) {
	c := Case{Name: name}
	sections := map[string]string{}
	var body strings.Builder
	section := ""
	flush := func() {
		if section == "" {
			c.Comment = body.String()
		} else {
			sections[section] = body.String()
		}
		body.Reset()
	}
	for line := range strings.SplitAfterSeq(text, "\n") {
		if n, ok := sectionName(line); ok {
			flush()
			if _, dup := sections[n]; dup {
				return Case{}, fmt.Errorf("attack %s: section %s twice", name, n)
			}
			section = n
			sections[n] = ""
			continue
		}
		body.WriteString(line)
	}
	flush()
	for n, s := range sections {
		switch n {
		case "policy.json":
			if err := json.Unmarshal([]byte(s), &c.Policy); err != nil {
				return Case{}, fmt.Errorf("attack %s: policy.json: %w", name, err)
			}
		case "setup.sh":
			c.Setup = s
		case "attack.sh":
			c.Attack = s
		case "after.sh":
			c.After = s
		case "check.sh":
			c.Check = s
		default:
			return Case{}, fmt.Errorf("attack %s: unknown section %s", name, n)
		}
	}
	if strings.TrimSpace(c.Attack) == "" || strings.TrimSpace(c.Check) == "" {
		return Case{}, fmt.Errorf("attack %s: attack.sh and check.sh are required", name)
	}
	return c, nil
}

// sectionName reports whether line is a "-- name --" section header.
func sectionName(line string) (string, bool) {
	l := strings.TrimSuffix(line, "\n")
	if len(l) < 7 || !strings.HasPrefix(l, "-- ") || !strings.HasSuffix(l, " --") {
		return "", false
	}
	name := strings.TrimSpace(l[3 : len(l)-3])
	return name, name != ""
}

// Load reads dir/name.txtar.
func Load(dir, name string) (Case, error) {
	b, err := os.ReadFile(filepath.Join(dir, name+".txtar"))
	if err != nil {
		return Case{}, err
	}
	return Parse(name, string(b))
}

// LoadAll reads every *.txtar in dir, sorted by name.
func LoadAll(dir string) ([]Case, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var cases []Case
	for _, p := range paths {
		c, err := Load(dir, strings.TrimSuffix(filepath.Base(p), ".txtar"))
		if err != nil {
			return nil, err
		}
		cases = append(cases, c)
	}
	return cases, nil
}
