// Command toolrpc-attack runs the sandbox attack suite (SPEC §14;
// conformance/testdata/attacks, read by package attack) side by side against
// toolrpc's sandbox and its peers' — `codex sandbox` from the @openai/codex
// npm package and `srt` from @anthropic-ai/sandbox-runtime — and prints one
// Markdown row per attack: held or escaped, per sandbox. The attacks that
// apply to any command sandbox (Peers: yes) run in every one; the rest
// (attacks on toolrpc's own server) only in toolrpc, through the
// conformance suite's TestEscape_* tests.
//
// Usage:
//
//	toolrpc-attack [--attacks DIR] [--toolrpc BIN] [--codex BIN] [--srt BIN] [--only NAME]
//
// Each sandbox is configured as toolrpc's workspace-write: the workspace and
// /tmp writable, the credentials of §14's deny list unreadable, and the
// attack's policy.json (network, writable, denyRead) mapped onto the peer's
// own settings where it has one. A peer that is not installed is left out.
// It runs as the user it is started as (CI and the published table: root).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/toolrpc/toolrpc/internal/attack"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("toolrpc-attack", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("attacks", "conformance/testdata/attacks", "the attack suite's directory")
	toolrpcBin := fs.String("toolrpc", "toolrpc", "the toolrpc binary")
	codexBin := fs.String("codex", "codex", "the codex binary (npm @openai/codex); empty: leave it out")
	srtBin := fs.String("srt", "srt", "the srt binary (npm @anthropic-ai/sandbox-runtime); empty: leave it out")
	only := fs.String("only", "", "run only this attack")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cases, err := attack.LoadAll(*dir)
	if err != nil {
		fmt.Fprintln(stderr, "toolrpc-attack:", err)
		return 1
	}
	var sandboxes []sandbox
	for _, s := range []sandbox{toolrpcSandbox{bin: *toolrpcBin}, codexSandbox{bin: *codexBin}, srtSandbox{bin: *srtBin}} {
		if p := s.program(); p == "" {
			continue
		} else if _, err := exec.LookPath(p); err != nil {
			fmt.Fprintf(stderr, "toolrpc-attack: %s not found, left out: %v\n", s.name(), err)
			continue
		}
		sandboxes = append(sandboxes, s)
	}
	fmt.Fprint(stdout, "| attack | rows |")
	for _, s := range sandboxes {
		fmt.Fprintf(stdout, " %s |", s.name())
	}
	fmt.Fprint(stdout, "\n|---|---|")
	for range sandboxes {
		fmt.Fprint(stdout, "---|")
	}
	fmt.Fprintln(stdout)
	held := map[string]int{}
	total := 0
	for _, c := range cases {
		if (*only != "" && c.Name != *only) || !c.ForPeers() {
			continue
		}
		total++
		fmt.Fprintf(stdout, "| %s | %s |", c.Name, c.Field("Rows"))
		for _, s := range sandboxes {
			verdict, why := runOne(c, s)
			if verdict == "held" || verdict == "works" {
				held[s.name()]++
			}
			if verdict == "escaped" && s.name() == "toolrpc" && c.Gap() != "" {
				verdict = "escaped (a stated gap)"
			}
			fmt.Fprintf(stdout, " %s |", verdict)
			if why != "" {
				fmt.Fprintf(stderr, "%s / %s: %s: %s\n", c.Name, s.name(), verdict, why)
			}
		}
		fmt.Fprintln(stdout)
	}
	fmt.Fprintf(stdout, "| **held or works** | of %d |", total)
	for _, s := range sandboxes {
		fmt.Fprintf(stdout, " %d |", held[s.name()])
	}
	fmt.Fprintln(stdout)
	return 0
}

// runOne runs c in a fresh box under s and returns "held", "escaped" or
// "error", and what the check (or the failure) printed.
func runOne(c attack.Case, s sandbox) (verdict, why string) {
	base, err := os.MkdirTemp(c.Workspace(), "toolrpc-attack-")
	if err != nil {
		return "error", err.Error()
	}
	defer os.RemoveAll(base)
	if err := os.Chmod(base, 0o755); err != nil {
		return "error", err.Error()
	}
	box, err := attack.NewBox(base)
	if err != nil {
		return "error", err.Error()
	}
	mark := fmt.Sprintf("toolrpc-attack-%s-%d", c.Name, os.Getpid())
	uid := os.Geteuid()
	if c.Setup != "" {
		if out, err := box.Host(c.Setup, mark, uid); err != nil {
			return "error", fmt.Sprintf("setup.sh: %v: %s", err, out)
		}
	}
	if out, err := s.run(box, c, mark); err != nil {
		why = fmt.Sprintf("attack: %v: %s", err, clip(out))
	}
	if c.After != "" {
		box.Host(c.After, mark, uid) // the host's act; its failure is the attack's business
	}
	out, err := box.Host(c.Check, mark, uid)
	switch {
	case err != nil && c.Works():
		return "broken", strings.TrimSpace(out) + "; " + why
	case err != nil:
		return "escaped", strings.TrimSpace(out)
	case c.Works():
		return "works", why
	}
	return "held", why
}

// clip keeps the last 400 bytes of a command's output for the log.
func clip(s string) string {
	if len(s) > 400 {
		return "…" + s[len(s)-400:]
	}
	return s
}
