package conformance

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// patchCase is one patch of the Codex differential: a tree, a patch, and,
// where SPEC §16 states a deliberate difference, toolrpc's own expected tree.
type patchCase struct {
	name  string
	files map[string]string
	patch string
	// want, when set, is toolrpc's tree where it deliberately differs from
	// Codex's (nil entries: no such file).
	want map[string]*string
}

// codexBinary installs conformance/codex (the pinned @openai/codex) and
// returns its native binary.
func codexBinary(t *testing.T) string {
	t.Helper()
	npmCI(t, "codex")
	found, _ := filepath.Glob("codex/node_modules/@openai/codex-*/vendor/*/bin/codex")
	more, _ := filepath.Glob("codex/node_modules/@openai/codex-*/vendor/*/codex/codex")
	found = append(found, more...)
	if len(found) == 0 {
		t.Fatalf("no native codex binary under conformance/codex/node_modules (npm ci installs the one for this platform)")
	}
	abs, err := filepath.Abs(found[0])
	require.NoError(t, err)
	return abs
}

// TestApplyPatchMatchesCodex is the differential of SPEC §16: every patch of
// the corpus runs through the real Codex (`codex --codex-run-as-apply-patch`)
// and through openai/apply_patch, each on its own copy of the same tree.
// Where Codex succeeds, toolrpc's files are byte-identical (except the
// stated differences: a missing final newline stays missing; stacked @@
// anchors apply). Where Codex fails, whether or not it changed files first,
// toolrpc changes nothing and its output names the failing hunk.
func TestApplyPatchMatchesCodex(t *testing.T) {
	codex := codexBinary(t)
	cases := append(handPatchCases(), generatedPatchCases(28)...)
	agreed, failedBoth, halfApplied := 0, 0, 0
	// One server for the corpus: each case's tree is a folder of its root,
	// and the patch toolrpc gets names its paths in that folder.
	root := t.TempDir()
	s := start(t, withRoot(root))
	defer s.stop(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			codexDir, ourDir := t.TempDir(), filepath.Join(root, tc.name)
			writeTree(t, codexDir, tc.files)
			writeTree(t, ourDir, tc.files)

			cmd := exec.Command(codex, "--codex-run-as-apply-patch", tc.patch)
			cmd.Dir = codexDir
			codexOut, codexErr := cmd.CombinedOutput()
			var exit *exec.ExitError
			if codexErr != nil && !errors.As(codexErr, &exit) {
				t.Fatalf("run codex: %v", codexErr)
			}

			res := decode[applyPatchReply](t, s.call(t, "openai/apply_patch", map[string]any{"input": inFolder(tc.patch, tc.name)}))
			res.Output = strings.ReplaceAll(res.Output, tc.name+"/", "")

			codexTree, ourTree := readTree(t, codexDir), readTree(t, ourDir)
			if codexErr == nil && tc.want == nil {
				require.Equal(t, "completed", res.Status, "Codex applied it:\n%s\ntoolrpc: %s", codexOut, res.Output)
				require.Equal(t, strings.TrimSpace(string(codexOut)), strings.TrimSpace(strings.SplitN(res.Output, "\nNote:", 2)[0]), "the output as Codex prints it")
				require.Equal(t, keepFinalNewline(tc.files, codexTree), ourTree, "files as Codex writes them (a missing final newline kept)")
				agreed++
				return
			}
			if tc.want != nil {
				require.Equal(t, "completed", res.Status, res.Output)
				require.Equal(t, wantTree(tc.files, tc.want), ourTree, "toolrpc's stated difference")
				return
			}
			require.Equal(t, "failed", res.Status, "Codex failed (%s) but toolrpc applied it: %s", codexOut, res.Output)
			require.Equal(t, tc.files, ourTree, "a failed patch changes no file")
			require.Contains(t, res.Output, "No file was changed.")
			require.Regexp(t, `hunk \d+ of |invalid patch|patch line \d+`, res.Output, "the output names the failing hunk")
			failedBoth++
			if !mapsEqual(tc.files, codexTree) {
				halfApplied++
			}
		})
	}
	t.Logf("%d patches: %d applied alike, %d refused by both (%d of those half-applied by Codex)", len(cases), agreed, failedBoth, halfApplied)
}

// applyPatchReply is openai/apply_patch's result.
type applyPatchReply struct {
	Status string `json:"status"`
	Output string `json:"output"`
}

// inFolder returns patch with every path it names moved into folder dir.
func inFolder(patch, dir string) string {
	lines := strings.Split(patch, "\n")
	for i, l := range lines {
		for _, m := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if rest, ok := strings.CutPrefix(l, m); ok {
				lines[i] = m + dir + "/" + rest
			}
		}
	}
	return strings.Join(lines, "\n")
}

// keepFinalNewline is Codex's tree with SPEC §16's rule applied: a file that
// had no final newline keeps none (Codex always adds one).
func keepFinalNewline(before, codexTree map[string]string) map[string]string {
	out := map[string]string{}
	for name, text := range codexTree {
		if old, ok := before[name]; ok && old != "" && !strings.HasSuffix(old, "\n") {
			text = strings.TrimSuffix(strings.TrimSuffix(text, "\n"), "\r")
		}
		out[name] = text
	}
	return out
}

// wantTree is before with changes applied (nil: removed).
func wantTree(before map[string]string, changes map[string]*string) map[string]string {
	out := map[string]string{}
	for k, v := range before {
		out[k] = v
	}
	for k, v := range changes {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = *v
		}
	}
	return out
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// writeTree writes files (slash paths) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
}

// readTree reads every regular file under dir, by slash path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	}))
	return out
}

func sp(s string) *string { return &s }

// handPatchCases are the hand-written edge cases of the differential.
func handPatchCases() []patchCase {
	py := "class A:\n    def f(self):\n        return 1\n\nclass B:\n    def f(self):\n        return 1\n"
	return []patchCase{
		{name: "update_one_line", files: map[string]string{"a.txt": "one\ntwo\nthree\n"},
			patch: "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n three\n*** End Patch"},
		{name: "anchor_picks_second_def", files: map[string]string{"s.py": py},
			patch: "*** Begin Patch\n*** Update File: s.py\n@@ class B:\n     def f(self):\n-        return 1\n+        return 2\n*** End Patch"},
		{name: "stacked_anchors", files: map[string]string{"s.py": py},
			patch: "*** Begin Patch\n*** Update File: s.py\n@@ class B:\n@@     def f(self):\n-        return 1\n+        return 2\n*** End Patch",
			want:  map[string]*string{"s.py": sp(strings.Replace(py, "B:\n    def f(self):\n        return 1", "B:\n    def f(self):\n        return 2", 1))}},
		{name: "end_of_file", files: map[string]string{"e.txt": "x\ny\nx\ny\n"},
			patch: "*** Begin Patch\n*** Update File: e.txt\n@@\n x\n-y\n+Y\n*** End of File\n*** End Patch"},
		{name: "crlf_file", files: map[string]string{"w.txt": "a\r\nb\r\nc\r\n"},
			patch: "*** Begin Patch\n*** Update File: w.txt\n@@\n a\n-b\n+B\n+B2\n c\n*** End Patch"},
		{name: "no_final_newline", files: map[string]string{"n.txt": "a\nb"},
			patch: "*** Begin Patch\n*** Update File: n.txt\n@@\n a\n-b\n+B\n*** End Patch"},
		{name: "tabs_kept", files: map[string]string{"t.go": "func f() {\n\tx := 1\n\treturn\n}\n"},
			patch: "*** Begin Patch\n*** Update File: t.go\n@@ func f() {\n-\tx := 1\n+\tx := 2\n \treturn\n*** End Patch"},
		{name: "add_move_delete", files: map[string]string{"old.txt": "keep\nme\n", "gone.txt": "bye\n"},
			patch: "*** Begin Patch\n*** Add File: dir/new.txt\n+hello\n+world\n*** Update File: old.txt\n*** Move to: moved/old.txt\n@@\n keep\n-me\n+you\n*** Delete File: gone.txt\n*** End Patch"},
		{name: "add_over_existing", files: map[string]string{"x.txt": "old\n"},
			patch: "*** Begin Patch\n*** Add File: x.txt\n+new\n*** End Patch"},
		{name: "move_over_existing", files: map[string]string{"a.txt": "a\n", "b.txt": "b\n"},
			patch: "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-a\n+A\n*** End Patch"},
		{name: "unicode_dash_in_file", files: map[string]string{"u.txt": "top\nwait \u2014 here\nend\n"},
			patch: "*** Begin Patch\n*** Update File: u.txt\n@@\n top\n-wait - here\n+wait, here\n end\n*** End Patch"},
		{name: "smart_quotes_in_file", files: map[string]string{"q.txt": "say \u201chi\u201d\nok\n"},
			patch: "*** Begin Patch\n*** Update File: q.txt\n@@\n-say \"hi\"\n+say \"bye\"\n ok\n*** End Patch"},
		{name: "trailing_spaces_in_file", files: map[string]string{"s.txt": "a  \nb\t\nc\n"},
			patch: "*** Begin Patch\n*** Update File: s.txt\n@@\n-a\n-b\n+AB\n c\n*** End Patch"},
		{name: "heredoc_wrapped", files: map[string]string{"h.txt": "1\n2\n"},
			patch: "<<'EOF'\n*** Begin Patch\n*** Update File: h.txt\n@@\n-1\n+one\n 2\n*** End Patch\nEOF"},
		{name: "half_applied_by_codex", files: map[string]string{"ok.txt": "x\n", "bad.txt": "y\n"},
			patch: "*** Begin Patch\n*** Update File: ok.txt\n@@\n-x\n+X\n*** Update File: bad.txt\n@@\n-nothere\n+z\n*** End Patch"},
		{name: "add_then_fail", files: map[string]string{"bad.txt": "y\n"},
			patch: "*** Begin Patch\n*** Add File: fresh.txt\n+new\n*** Update File: bad.txt\n@@\n-missing\n+z\n*** End Patch"},
		{name: "delete_missing", files: map[string]string{"a.txt": "a\n"},
			patch: "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n*** Delete File: nope.txt\n*** End Patch"},
		{name: "update_missing_file", files: map[string]string{"a.txt": "a\n"},
			patch: "*** Begin Patch\n*** Update File: nope.txt\n@@\n-a\n+b\n*** End Patch"},
		{name: "bad_header", files: map[string]string{"a.txt": "a\n"},
			patch: "*** Begin Patch\n*** Frobnicate File: a.txt\n*** End Patch"},
		{name: "no_end_marker", files: map[string]string{"a.txt": "a\n"},
			patch: "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n"},
		{name: "pure_insert_appends", files: map[string]string{"a.txt": "a\nb\n"},
			patch: "*** Begin Patch\n*** Update File: a.txt\n@@\n+c\n*** End Patch"},
		{name: "two_chunks", files: map[string]string{"m.txt": "1\n2\n3\n4\n5\n6\n7\n8\n"},
			patch: "*** Begin Patch\n*** Update File: m.txt\n@@\n 1\n-2\n+two\n 3\n@@\n 6\n-7\n+seven\n 8\n*** End Patch"},
		{name: "utf8_bom_kept", files: map[string]string{"b.txt": "\ufeffa\nb\n"},
			patch: "*** Begin Patch\n*** Update File: b.txt\n@@\n a\n-b\n+B\n*** End Patch",
			want:  map[string]*string{"b.txt": sp("\ufeffa\nB\n")}}, // Codex reads the BOM as text of line 1 and fails
	}
}

// generatedPatchCases are n patches made from a fixed seed: one-line
// changes with context, over LF, CRLF and no-final-newline files, with
// trailing spaces, Unicode dashes and quotes in the removed lines, End of
// File chunks, and every seventh one a patch that cannot apply.
func generatedPatchCases(n int) []patchCase {
	var cases []patchCase
	for i := range n {
		r := rand.New(rand.NewPCG(uint64(i), 51))
		count := 6 + r.IntN(10)
		lines := make([]string, count)
		for j := range lines {
			lines[j] = fmt.Sprintf("%sline %d of case %d", strings.Repeat("\t", r.IntN(3)), j, i)
		}
		k := 1 + r.IntN(count-2)
		removed := lines[k]
		fileLine := removed
		variant := i % 7
		switch variant {
		case 3:
			fileLine = removed + "   "
		case 4:
			fileLine = removed + " \u2013 \u2018x\u2019"
			removed += " - 'x'"
		}
		lines[k] = fileLine
		end := "\n"
		if variant == 1 {
			end = "\r\n"
		}
		text := strings.Join(lines, end) + end
		if variant == 2 {
			text = strings.TrimSuffix(text, end)
		}
		var p strings.Builder
		p.WriteString("*** Begin Patch\n*** Update File: f.txt\n@@\n")
		fmt.Fprintf(&p, " %s\n", lines[k-1])
		if variant == 6 {
			fmt.Fprintf(&p, "-%s (not in the file)\n", removed)
		} else {
			fmt.Fprintf(&p, "-%s\n", removed)
		}
		fmt.Fprintf(&p, "+changed %d\n", i)
		if variant == 5 && k == count-2 {
			fmt.Fprintf(&p, " %s\n*** End of File\n", lines[k+1])
		} else {
			fmt.Fprintf(&p, " %s\n", lines[k+1])
		}
		p.WriteString("*** End Patch\n")
		cases = append(cases, patchCase{name: fmt.Sprintf("gen%02d_v%d", i, variant), files: map[string]string{"f.txt": text}, patch: p.String()})
	}
	sort.SliceStable(cases, func(i, j int) bool { return cases[i].name < cases[j].name })
	return cases
}
