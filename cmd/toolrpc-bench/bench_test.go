package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// tinyGoTree writes a small stand-in for the Go tree holding a match for
// every Go-tree row's pattern.
func tinyGoTree(t *testing.T) string {
	dir := t.TempDir()
	for i := 0; i < 6; i++ {
		src := fmt.Sprintf("package p\n\nimport \"errors\"\n\nconst ABC_DEF = %d\n\nvar e = errors.New(\"nil pointer dereference\")\n\nfunc Test%d(t *T) { _ = 1234567890 }\n", i, i)
		p := filepath.Join(dir, "src", fmt.Sprintf("p%d", i%3), fmt.Sprintf("f%d.go", i))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
	}
	return dir
}

// tinyLinuxTar packs a small stand-in for Debian's kernel tarball: one top
// directory whose .gitignore ends in Debian's two packaging lines, and a
// match for every Linux row's pattern.
func tinyLinuxTar(t *testing.T) string {
	dir := t.TempDir()
	top := filepath.Join(dir, "linux-source-6.1")
	files := map[string]string{
		".gitignore":          "*.o\n#\n# Debian packaging\n/*\n!/debian/\n",
		"Makefile":            "all:\n",
		"kernel/power/main.c": "int PM_RESUME_X;\nstatic char s[] = \"abcdefghijklmnopqrstuvwxyzabcdefgh\";\n",
		"drivers/pm/pm.c":     "#define PM_RESUME 1\n",
		"drivers/pm/pm.o":     "PM_RESUME",
	}
	for p, c := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(top, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(top, p), []byte(c), 0o644))
	}
	tarball := filepath.Join(dir, "linux-source-6.1.tar.xz")
	out, err := exec.Command("tar", "-cJf", tarball, "-C", dir, "linux-source-6.1").CombinedOutput()
	require.NoError(t, err, string(out))
	return tarball
}

type jsonReport struct {
	Machine machine `json:"machine"`
	Rows    []Row   `json:"rows"`
}

func runQuick(t *testing.T, args ...string) (int, string, jsonReport) {
	t.Helper()
	js := filepath.Join(t.TempDir(), "rows.json")
	var stdout, stderr bytes.Buffer
	code := run(append(args, "--json", js), &stdout, &stderr)
	var rep jsonReport
	if b, err := os.ReadFile(js); err == nil {
		require.NoError(t, json.Unmarshal(b, &rep))
	}
	return code, stdout.String() + "\n-- stderr --\n" + stderr.String(), rep
}

// TestQuickRun runs the command end to end on tiny corpora: every row is
// measured and listed, and with the peers missing their rows say so and the
// install line is printed.
func TestQuickRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and drives the server")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool to build the server")
	}
	cache := t.TempDir()
	tiny := []string{"--quick", "--cache", cache, "--goroot", tinyGoTree(t), "--runs", "1", "--cancel-runs", "1",
		"--rtt-calls", "3", "--big-mb", "1", "--bash-mb", "1", "--node-pkgs", "3", "--linux-tar", tinyLinuxTar(t)}
	names := map[string]bool{}
	for _, sc := range scenarios() {
		names[sc.name] = true
	}

	t.Run("every row", func(t *testing.T) {
		code, out, rep := runQuick(t, tiny...)
		require.Equal(t, 0, code, out)
		require.Len(t, rep.Rows, len(names), out)
		for _, r := range rep.Rows {
			require.True(t, names[r.Scenario], "unknown row %q", r.Scenario)
			require.Contains(t, out, "| "+strings.ReplaceAll(r.Scenario, "|", `\|`)+" | "+r.Driven+" |", "the table lists the row")
			require.NotEqual(t, statusSkipped, r.Status, r.Scenario)
			require.False(t, strings.HasPrefix(r.Status, statusErrorPrefix), "%s: %s", r.Scenario, r.Status)
			require.Contains(t, []string{statusHolds, statusMissed, statusNoGoal, statusNoPeer}, r.Status, r.Scenario)
		}
		require.Contains(t, out, "load average")
		gi, err := os.ReadFile(filepath.Join(cache, "linux", ".gitignore"))
		require.NoError(t, err)
		require.Equal(t, "*.o\n#\n# Debian packaging\n", string(gi), "Debian's packaging lines are removed")
		for _, r := range rep.Rows {
			if strings.Contains(r.Scenario, "Linux tree") && !strings.Contains(r.Scenario, "memory") {
				require.Contains(t, r.Note, linuxNote, r.Scenario)
				require.NotContains(t, r.Note, "toolrpc", "%s: both sides find the same files", r.Scenario)
			}
		}
	})

	t.Run("linux source missing", func(t *testing.T) {
		args := append(append([]string(nil), tiny...), "--server", filepath.Join(cache, "bin", "toolrpc"), "--run", "Linux tree",
			"--linux-tar", filepath.Join(t.TempDir(), "none.tar.xz"))
		code, out, rep := runQuick(t, args...)
		require.Equal(t, 0, code, out)
		require.Contains(t, out, "install them with: apt-get install ripgrep fd-find hyperfine "+linuxPackage)
		n := 0
		for _, r := range rep.Rows {
			if strings.Contains(r.Scenario, "Linux tree") {
				n++
				require.Equal(t, statusNoPeer, r.Status, r.Scenario)
				require.Contains(t, r.Note, "apt-get install "+linuxPackage, r.Scenario)
			}
		}
		linuxIndex := 0
		for _, sc := range indexScenarios() {
			if strings.Contains(sc.name, "(Linux tree)") {
				linuxIndex++
			}
		}
		require.Equal(t, 17+linuxIndex, n, "the Linux rows (three of them warm-table rows), the Linux sandbox row and the Linux content index rows")
	})

	t.Run("peers missing", func(t *testing.T) {
		saved := lookPath
		t.Cleanup(func() { lookPath = saved })
		lookPath = func(name string) (string, error) {
			if name == "rg" || name == "fdfind" || name == "hyperfine" {
				return "", errors.New("not installed")
			}
			return saved(name)
		}
		args := append(append([]string(nil), tiny...), "--server", filepath.Join(cache, "bin", "toolrpc"), "--run", "glob|harness|round trip")
		code, out, rep := runQuick(t, args...)
		require.Equal(t, 0, code, out)
		require.Contains(t, out, "peers not installed: fdfind, hyperfine, rg — install them with: apt-get install ripgrep fd-find hyperfine")
		byName := map[string]Row{}
		for _, r := range rep.Rows {
			byName[r.Scenario] = r
		}
		for _, name := range []string{"glob `**/*.go` (Go tree)", "harness self-check: `rg -c " + patCount + "` timed here vs by hyperfine"} {
			require.Equal(t, statusNoPeer, byName[name].Status, name)
		}
		require.Greater(t, byName["glob `**/*.go` (Go tree)"].ToolrpcValue, 0.0, "toolrpc is measured without its peer")
		require.Equal(t, statusNoGoal, byName["round trip of tools/list"].Status)
		require.Equal(t, statusSkipped, byName["grep count `"+patCount+"` (Go tree)"].Status)
	})
}

func TestRunRejectsBadFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"zero runs", []string{"--runs", "0"}},
		{"bad regexp", []string{"--run", "("}},
		{"argument", []string{"extra"}},
		{"unknown flag", []string{"--nope"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			require.Equal(t, 2, run(tc.args, &stdout, &stderr))
			require.Empty(t, stdout.String())
		})
	}
}

func TestJudge(t *testing.T) {
	tests := []struct {
		name        string
		row         Row
		wantStatus  string
		wantRatio   float64
		wantGoalTxt string
	}{
		{"ratio holds", Row{ToolrpcValue: 3, PeerValue: 2, goal: goal{kind: ratioAtMost, limit: 1.5}}, statusHolds, 1.5, "≤ 1.5×"},
		{"ratio missed", Row{ToolrpcValue: 4, PeerValue: 2, goal: goal{kind: ratioAtMost, limit: 1.5}}, statusMissed, 2, "≤ 1.5×"},
		{"band below", Row{ToolrpcValue: 1, PeerValue: 2, goal: goal{kind: ratioWithin, lo: 0.8, limit: 1.25}}, statusMissed, 0.5, "0.8–1.25×"},
		{"value below", Row{Unit: "MB", ToolrpcValue: 63.9, goal: goal{kind: valueBelow, limit: 64}}, statusHolds, 0, "< 64 MB"},
		{"value not below", Row{Unit: "MB", ToolrpcValue: 64, goal: goal{kind: valueBelow, limit: 64}}, statusMissed, 0, "< 64 MB"},
		{"value at most", Row{Unit: "ms", ToolrpcValue: 50, goal: goal{kind: valueAtMost, limit: 50}}, statusHolds, 0, "≤ 50 ms"},
		{"no goal", Row{ToolrpcValue: 1}, statusNoGoal, 0, "—"},
		{"failed check stays missed", Row{ToolrpcValue: 1, Status: statusMissed, goal: goal{kind: valueAtMost, limit: 50}}, statusMissed, 0, "≤ 50 "},
		{"peer missing", Row{ToolrpcValue: 1, Status: statusNoPeer, goal: goal{kind: ratioAtMost, limit: 1}}, statusNoPeer, 0, "≤ 1×"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.row
			r.judge()
			require.Equal(t, tc.wantStatus, r.Status)
			require.InDelta(t, tc.wantRatio, r.Ratio, 1e-9)
			require.Equal(t, tc.wantGoalTxt, r.Goal)
		})
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.in), func(t *testing.T) {
			require.Equal(t, tc.want, median(tc.in))
		})
	}
}

func TestChecks(t *testing.T) {
	tests := []struct {
		name  string
		check func(json.RawMessage, []byte) string
		res   string
		peer  string
		want  string
	}{
		{"counts agree", checkCounts, `{"counts":[{"path":"a","count":2}],"count":2}`, "./a:2\n", ""},
		{"counts differ", checkCounts, `{"counts":[{"path":"a","count":2}],"count":2}`, "a:2\nb.raw:1\n",
			"toolrpc counted 2 lines in 1 files (truncated=false), the peer 3 in 2: only the peer has b.raw:1"},
		{"files agree", checkFiles, `{"files":["b","a"]}`, "a\nb\n", ""},
		{"files truncated", checkFiles, `{"files":["a"],"truncated":true}`, "a\n", "toolrpc listed 1 files (truncated=true), the peer 1: "},
		{"content", checkContent, `{"count":1}`, "a:1:x\na:2:y\n", "toolrpc returned 1 matching lines (truncated=false), the peer 2"},
		{"glob total from notice", checkGlob, `{"count":2,"truncated":true,"notice":"Showing 2 of 3 files (limit=2)."}`, "a\nb\nc\n", ""},
		{"glob short", checkGlob, `{"count":2}`, "a\nb\nc\n", "toolrpc reports 2 files, the peer lists 3"},
		{"first n", checkFirst(2), `{"count":2}`, "x\n", "expected 2 lines from each side: toolrpc 2, the peer 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.check(json.RawMessage(tc.res), []byte(tc.peer)))
		})
	}
}

func TestPrintTableEscapesPipes(t *testing.T) {
	r := Row{Scenario: "a | b", Driven: drivenLongLived, Unit: "ms", ToolrpcValue: 2, PeerValue: 1, peerShort: "x | head", measured: true, goal: goal{kind: ratioAtMost, limit: 3}}
	r.judge()
	var out bytes.Buffer
	printTable(&out, machine{}, []Row{r})
	require.Contains(t, out.String(), `| a \| b | long-lived server | 2.00 ms | 1.00 ms (x \| head) | 2.00× | ≤ 3× | yes |`)
}
