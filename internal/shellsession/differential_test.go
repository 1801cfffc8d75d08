//go:build unix

package shellsession

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolrpc/toolrpc/internal/shell"
)

// pieces are the commands the differential test draws from: builtins,
// pipelines, redirections, subshells, cd into and out of symlinked
// directories, state that must persist, and failing commands.
var pieces = []string{
	"echo hello", "printf 'no newline'", "printf '%s\\n' a b c", "true", "false", "pwd", "pwd -P",
	"cd real", "cd link", "cd ..", "cd -P link", "cd nowhere", "cd real/deeper", "cd \"$OLDPWD\"", "cd ~- 2>/dev/null; pwd",
	"export V=$RANDOM_FIXED", "V=local-$V", "unset V", "echo \"[$V]\"", "echo $?", "sh -c 'echo child:$V'",
	"f() { echo f:$1; return 4; }", "f x", "f y; echo after:$?", "unset -f f",
	"alias al='echo aliased'", "al", "unalias al",
	"echo out; echo err >&2", "echo to-err >&2; false", "ls no-such-file", "cat missing 2>&1",
	"echo a | tr a b", "seq 5 | tail -2", "false | true; echo pipe:$?", "set -o pipefail", "set +o pipefail",
	"(cd real && pwd)", "(exit 7)", "{ echo grouped; echo g2 >&2; }",
	"echo file > f.txt; cat f.txt", "cat < f.txt", "echo more >> f.txt; wc -l < f.txt",
	"read x; echo read:$x", "cat", "x=$(pwd); echo ${x##*/}", "for i in 1 2; do echo loop$i; done",
	"if [ -d real ]; then echo isdir; fi", "ls", "echo $((6*7))", "declare -A m=([k]=v)", "echo \"${m[k]}\"",
	"shopt -s nullglob", "echo nomatch*", "shopt -u nullglob", "umask 077", "umask",
	"echo partial-line | tr -d '\\n'", "printf 'x\\0y' | od -c | head -1", "echo 'unterminated",
}

// sequence draws n commands.
func sequence(r *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = pieces[r.Intn(len(pieces))]
	}
	return out
}

// outcome is what one command gave.
type outcome struct {
	stdout, stderr string
	code           int
}

// lineNo hides the line numbers of bash's messages, which count the lines
// of the script that ran them.
var lineNo = regexp.MustCompile(`(?m)^bash: (eval: )?line [0-9]+: `)

func normal(s string) string { return lineNo.ReplaceAllString(s, "bash: ${1}line N: ") }

// oracle runs cmds with one bash reading a script named bash from dir,
// each command's output delimited into files by the script.
func oracle(t *testing.T, dir string, cmds []string) []outcome {
	t.Helper()
	outDir := t.TempDir()
	var b strings.Builder
	b.WriteString("shopt -s expand_aliases\n__rc=0\n__r() { return $1; }\ncd -- " + quote(dir) + "\nunset OLDPWD\n")
	for i, c := range cmds {
		base := filepath.Join(outDir, strconv.Itoa(i))
		fmt.Fprintf(&b, "__c=%s; __r $__rc; for __o in 1; do eval \"$__c\"; done </dev/null >%s.out 2>%s.err\n__rc=$?; echo $__rc >%s.rc\n",
			quote(c), base, base, base)
	}
	script := filepath.Join(outDir, "bash")
	if err := os.WriteFile(script, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "--norc", "--noprofile", "bash")
	cmd.Dir = outDir
	cmd.Env = append(os.Environ(), "RANDOM_FIXED=7", "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0")
	_ = cmd.Run()
	out := make([]outcome, len(cmds))
	for i := range cmds {
		base := filepath.Join(outDir, strconv.Itoa(i))
		so, _ := os.ReadFile(base + ".out")
		se, _ := os.ReadFile(base + ".err")
		rc, _ := os.ReadFile(base + ".rc")
		code, err := strconv.Atoi(strings.TrimSpace(string(rc)))
		if err != nil {
			code = -1
		}
		out[i] = outcome{string(so), normal(string(se)), code}
	}
	return out
}

// reset is the command that starts each sequence, in the session and in the
// oracle alike, without a fork: the only file the pieces write emptied, and
// the shell state the pieces change put back.
func reset(dir string) string {
	return "cd -- " + quote(dir) + " && : > f.txt; " +
		"unset V m x; unset -f f; unalias -a; set +o pipefail; shopt -u nullglob; umask 022; true"
}

// fixture makes dir afresh: a real directory and a symlink to it.
func fixture(t *testing.T, dir string) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "real", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
}

// TestDifferentialAgainstScript checks SPEC §6.7: 200 random command
// sequences give, command by command, the same stdout, stderr and exit code
// in a session as in one bash reading a script that delimits each command's
// output (the oracle). Each sequence starts with reset, run by both.
func TestDifferentialAgainstScript(t *testing.T) {
	seed := int64(48)
	if s := os.Getenv("TOOLRPC_DIFF_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	r := rand.New(rand.NewSource(seed))
	t.Setenv("RANDOM_FIXED", "7")
	dir := filepath.Join(t.TempDir(), "w")
	fixture(t, dir)
	sequences, length := 200, 4
	if testing.Short() {
		sequences = 20
	}
	var cmds []string
	for n := 0; n < sequences; n++ {
		cmds = append(cmds, reset(dir))
		cmds = append(cmds, sequence(r, length)...)
	}
	t0 := time.Now()
	want := oracle(t, dir, cmds)
	t.Logf("oracle: %v", time.Since(t0))
	fixture(t, dir) // the session starts from the tree the oracle started from
	t0 = time.Now()
	defer func() { t.Logf("session: %v", time.Since(t0)) }()
	m := NewManager(t.Logf)
	defer m.Close()
	for i, c := range cmds {
		res, err := m.Run(context.Background(), Request{Name: "diff", Spec: shell.Spec{Command: c, Dir: dir, Timeout: 20 * time.Second}})
		if err != nil {
			t.Fatalf("command %d %q: %v", i, c, err)
		}
		got := outcome{res.Stdout, normal(res.Stderr), -1}
		if res.ExitCode != nil {
			got.code = *res.ExitCode
		}
		if got != want[i] {
			n := i / (length + 1)
			t.Fatalf("seed %d sequence %d %q, command %d %q:\n got %+v\nwant %+v", seed, n, cmds[n*(length+1):(n+1)*(length+1)], i, c, got, want[i])
		}
	}
}
