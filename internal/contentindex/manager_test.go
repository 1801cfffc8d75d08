//go:build linux

package contentindex

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/toolrpc/toolrpc/walk"
)

// logRecorder collects log lines.
type logRecorder struct {
	mu    sync.Mutex
	lines []string
}

func (l *logRecorder) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logRecorder) count(sub string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.lines {
		if strings.Contains(s, sub) {
			n++
		}
	}
	return n
}

// mountTmpfs mounts a tmpfs with opts at a new temporary directory.
func mountTmpfs(t *testing.T, opts string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root (CI runs as root)")
	}
	dir := t.TempDir()
	err := unix.Mount("tmpfs", dir, "tmpfs", 0, opts)
	if err == unix.EPERM {
		t.Skip("mounting a tmpfs needs CAP_SYS_ADMIN (CI runs as root with it)")
	}
	require.NoError(t, err)
	t.Cleanup(func() { _ = unix.Unmount(dir, unix.MNT_DETACH) })
	return dir
}

// checkNoIndex drives calls against a manager whose dataDir cannot hold an
// index: every call answers ok=false (the scan path) and the reason is
// logged exactly once.
func checkNoIndex(t *testing.T, dataDir string, wantErr string) {
	r := rand.New(rand.NewPCG(5, 6))
	tr := newTree(t, r)
	for range 30 {
		tr.write(tr.randomName(), false)
	}
	log := &logRecorder{}
	mgr := Open(Options{DataDir: dataDir, Root: tr.root, CPUPercent: 100, Logf: log.logf})
	defer mgr.Close()
	q, err := plan("foo_bar", false, false)
	require.NoError(t, err)
	for range 3 {
		files := tr.files()
		got, ok := mgr.Candidates(q, files)
		require.False(t, ok)
		require.Equal(t, walk.Files(files), got)
		mgr.settle()
	}
	require.False(t, mgr.Ready())
	require.Equal(t, 1, log.count("no content index this session"), "logged once: %q", log.lines)
	require.Equal(t, 1, log.count(wantErr), "the log names the cause: %q", log.lines)
}

func TestReadOnlyDataDir(t *testing.T) {
	checkNoIndex(t, mountTmpfs(t, "ro,size=1m"), "read-only file system")
}

func TestFullDataDir(t *testing.T) {
	dir := mountTmpfs(t, "size=8k")
	// Fill it up.
	_ = os.WriteFile(filepath.Join(dir, "filler"), bytes.Repeat([]byte("x"), 64<<10), 0o600)
	checkNoIndex(t, dir, "no space left on device")
}

func TestDataDirIsAFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(f, nil, 0o600))
	checkNoIndex(t, f, "not a directory")
}

func TestQuotaTurnsTheIndexOff(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	tr := newTree(t, r)
	// High-entropy text: about one new trigram per byte, far past the quota.
	b := make([]byte, 4<<20)
	for i := range b {
		b[i] = byte(' ' + r.IntN(95))
	}
	abs := filepath.Join(tr.root, "noise.txt")
	require.NoError(t, os.WriteFile(abs, b, 0o644))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(abs, old, old))
	checkNoIndexTree(t, tr, t.TempDir(), "disk quota")
}

// checkNoIndexTree is checkNoIndex over a given tree.
func checkNoIndexTree(t *testing.T, tr *tree, dataDir, wantErr string) {
	log := &logRecorder{}
	mgr := Open(Options{DataDir: dataDir, Root: tr.root, CPUPercent: 100, Logf: log.logf})
	defer mgr.Close()
	q, _ := plan("foo_bar", false, false)
	for range 3 {
		_, ok := mgr.Candidates(q, tr.files())
		require.False(t, ok)
		mgr.settle()
	}
	require.Equal(t, 1, log.count(wantErr), "the log names the cause: %q", log.lines)
	_, err := os.Stat(filepath.Join(Dir(dataDir, tr.root), indexName))
	require.True(t, os.IsNotExist(err), "no index file is left: %v", err)
}

// TestBuildResumes: a stopped build resumes from its last complete run,
// unless that run is of an earlier run format (oldRunMagics): then it builds
// from the start. Either way the index answers like a fresh one.
func TestBuildResumes(t *testing.T) {
	for _, oldRun := range append([]string{""}, oldRunMagics...) {
		t.Run("run magic "+oldRun, func(t *testing.T) { checkResume(t, oldRun) })
	}
}

// oldRunMagics are the magics of earlier run formats.
var oldRunMagics = []string{"TRIRUN01", "TRIRUN02", "TRIRUN03", "TRIRUN04", "TRIRUN05"}

// checkResume stops a build after its first run, gives the runs the magic
// oldRun (unless ""), and resumes it.
func checkResume(t *testing.T, oldRun string) {
	require.NotContains(t, oldRunMagics, runMagic, "a run format change bumps the magic")
	old, oldBlock := runPairs, blockBytes
	// Files of several blocks: the runs carry where the blocks start.
	runPairs, blockBytes = 200, 24
	defer func() { runPairs, blockBytes = old, oldBlock }()
	r := rand.New(rand.NewPCG(9, 10))
	tr := newTree(t, r)
	for range 40 {
		tr.write(tr.randomName(), false)
	}
	files := tr.files()
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Rel)
	}
	dir := Dir(t.TempDir(), tr.root)
	require.NoError(t, os.MkdirAll(dir, 0o700))
	// Stop the first build as soon as it has written one run.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopAfterRun = cancel
	defer func() { stopAfterRun = nil }()
	_, err := build(ctx, tr.root, dir, sortedCopy(paths), &pacer{})
	require.ErrorIs(t, err, context.Canceled)
	stopAfterRun = nil
	if oldRun != "" {
		runs, err := filepath.Glob(filepath.Join(dir, buildDirName, "run-*"))
		require.NoError(t, err)
		require.NotEmpty(t, runs)
		for _, p := range runs {
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(p, append([]byte(oldRun), data[len(oldRun):]...), 0o600))
		}
	}
	at, err := build(context.Background(), tr.root, dir, sortedCopy(paths), &pacer{})
	require.NoError(t, err)
	if oldRun == "" {
		require.Positive(t, at, "the second build resumed after the first one's run")
	} else {
		require.Zero(t, at, "runs of an old format are built again")
	}
	// The resumed index answers like a fresh one.
	mgr := Open(Options{DataDir: filepath.Dir(filepath.Dir(dir)), Root: tr.root, CPUPercent: 100, Logf: t.Logf})
	defer mgr.Close()
	mgr.settle()
	require.True(t, mgr.Ready(), "the resumed index is mapped at open")
	spans := spansChecked.Load()
	for range 40 {
		checkCandidates(t, mgr, tr, genPattern(r, 3), r.IntN(2) == 0, false)
	}
	require.Greater(t, spansChecked.Load(), spans, "candidates were given the spans of their blocks")
}

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	slices.Sort(c)
	return c
}

// TestSharedBetweenProcesses: two server processes on one root and dataDir
// build the index once; the other maps it.
func TestSharedBetweenProcesses(t *testing.T) {
	if os.Getenv("CONTENTINDEX_HELPER") != "" {
		return
	}
	r := rand.New(rand.NewPCG(11, 12))
	tr := newTree(t, r)
	for range 200 {
		tr.write(tr.randomName(), false)
	}
	dataDir := t.TempDir()
	var outs [2]bytes.Buffer
	var cmds [2]*exec.Cmd
	for i := range cmds {
		cmds[i] = exec.Command(os.Args[0], "-test.run=^TestHelperServer$", "-test.count=1")
		cmds[i].Env = append(os.Environ(), "CONTENTINDEX_HELPER=1", "CONTENTINDEX_ROOT="+tr.root, "CONTENTINDEX_DATA="+dataDir)
		cmds[i].Stdout, cmds[i].Stderr = &outs[i], &outs[i]
		require.NoError(t, cmds[i].Start())
	}
	for i := range cmds {
		require.NoError(t, cmds[i].Wait(), outs[i].String())
	}
	all := outs[0].String() + outs[1].String()
	require.Equal(t, 2, strings.Count(all, "HELPER READY"), all)
	require.Equal(t, 1, strings.Count(all, "HELPER BUILT 1"), "one process built the index:\n%s", all)
	require.Equal(t, 1, strings.Count(all, "HELPER BUILT 0"), "the other mapped it:\n%s", all)
}

// TestHelperServer is the helper process of TestSharedBetweenProcesses.
func TestHelperServer(t *testing.T) {
	root := os.Getenv("CONTENTINDEX_ROOT")
	if os.Getenv("CONTENTINDEX_HELPER") == "" || root == "" {
		return
	}
	mgr := Open(Options{DataDir: os.Getenv("CONTENTINDEX_DATA"), Root: root, CPUPercent: 100,
		Logf: func(f string, a ...any) { fmt.Printf(f+"\n", a...) }})
	defer mgr.Close()
	tr := &tree{t: t, root: root}
	q, _ := plan("foo_bar", false, false)
	for deadline := time.Now().Add(time.Minute); !mgr.Ready() && time.Now().Before(deadline); {
		mgr.Candidates(q, tr.files())
		mgr.settle()
		time.Sleep(10 * time.Millisecond)
	}
	if mgr.Ready() {
		fmt.Println("HELPER READY")
		fmt.Printf("HELPER BUILT %d\n", mgr.Builds())
	}
}

// TestReopenMapsWithoutRebuild: a server that starts on a root whose index
// exists maps it; a grep that comes before the mapping does not rebuild it.
func TestReopenMapsWithoutRebuild(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	tr := newTree(t, r)
	dataDir, first := builtIndex(t, tr)
	log := &logRecorder{}
	second := Open(Options{DataDir: dataDir, Root: tr.root, CPUPercent: 100, Logf: log.logf})
	defer second.Close()
	q, _ := plan("foo_bar", false, false)
	second.Candidates(q, tr.files()) // most likely before the worker mapped the index
	second.settle()
	require.True(t, second.Ready())
	require.Zero(t, second.Builds(), "no second build")
	require.Equal(t, 1, first.Builds())
}

// TestBuildWaitsForTheCall: the build a call asks for (the first Candidates
// of a root without an index) does not start while the call runs (Busy
// not yet done): nothing is written under the data dir, and the worker
// serves nothing after the build request; once the call is done the build
// runs and the index is mapped.
func TestBuildWaitsForTheCall(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	tr := newTree(t, r)
	for range 30 {
		tr.write(tr.randomName(), false)
	}
	set := NewSet(Options{DataDir: t.TempDir(), CPUPercent: 100, Logf: t.Logf})
	defer set.Close()
	done := set.Busy(tr.root)
	mgr := set.Manager(tr.root)
	q, err := plan("foo_bar", false, false)
	require.NoError(t, err)
	_, ok := mgr.Candidates(q, tr.files())
	require.False(t, ok, "no index yet")
	settled := make(chan struct{})
	go func() { mgr.settle(); close(settled) }()
	select {
	case <-settled:
		t.Fatal("the worker served the build while the call was running")
	case <-time.After(300 * time.Millisecond):
	}
	_, statErr := os.Stat(mgr.dir)
	require.True(t, os.IsNotExist(statErr), "nothing written while the call runs: %v", statErr)
	require.False(t, mgr.Ready())
	done()
	done() // a second call of done changes nothing
	select {
	case <-settled:
	case <-time.After(60 * time.Second):
		t.Fatal("the build did not run after the call")
	}
	require.True(t, mgr.Ready(), "the index is built once the call is done")
	require.Equal(t, 1, mgr.Builds())
}
