package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// loadTitle is the title of the load of root's stored file table that
// initialize starts (SPEC §12).
func loadTitle(root string) string { return "Loading the file list of " + root }

// knownTree writes a tree of dirs directories of files files each, runs one
// server on it that greps once (which builds and persists the file table
// and starts the content index), stops it, and returns the tree's real path
// and the data dir the server left its table in.
func knownTree(t *testing.T, dirs, files int) (root, dataDir string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	for d := range dirs {
		for f := range files {
			p := filepath.Join(root, fmt.Sprintf("d%03d/f%03d.txt", d, f))
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, fmt.Appendf(nil, "foo %d\nPM_RESUME %d\n", f, d%7), 0o644))
		}
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.log\n"), 0o644))
	dataDir = t.TempDir()
	// The first grep answers by walking and builds the table once it has
	// answered; a listing that comes while that build runs waits for it,
	// so the table is built (and saved at shutdown) by the last listing.
	for range 5 {
		first := start(t, withRoot(root), withDataDir(dataDir))
		first.call(t, "tools/grep", map[string]any{"pattern": "PM_RESUME", "outputMode": "count"})
		first.call(t, "tools/glob", map[string]any{"pattern": "nothing-here"})
		first.call(t, "tools/glob", map[string]any{"pattern": "nothing-here"})
		first.stop(t)
		if m, _ := filepath.Glob(filepath.Join(dataDir, "index", "*", "filetable")); len(m) == 1 {
			return root, dataDir
		}
	}
	t.Fatal("no server persisted its file table")
	return "", ""
}

// frameIndex returns the index in s.frames() of the reply to the request
// whose id is id, or -1.
func frameIndex(s *server, id json.RawMessage) int {
	for i, f := range s.frames() {
		if f.Method == "" && compact(f.ID) == compact(id) {
			return i
		}
	}
	return -1
}

// TestPrewarmShownAfterInitialize (issue 50): a server whose data dir holds
// the file table an earlier server left for its root starts loading it at
// initialize, before any call: a client that declared
// window.workDoneProgress sees the load as a build titled "Loading the file
// list of <root>", created only after the initialize result (initialize
// never waits for it), counting directories to "N of N directories
// checked". A root with nothing stored shows no load (no first walk is
// started at initialize), and neither does a client without the
// capability.
//
// Checks SPEC §12.
func TestPrewarmShownAfterInitialize(t *testing.T) {
	if !fileTableBuild {
		t.Skip("a build without file tables stores none to load")
	}
	root, dataDir := knownTree(t, 30, 20)
	s := start(t, withRoot(root), withDataDir(dataDir), withWorkDoneProgress())
	c := answerCreates(s, 0, func(json.RawMessage) map[string]any { return map[string]any{"result": nil} })
	defer c.close()
	waitFor(t, "the end of the load's progress", func() bool { return ended(t, s, loadTitle(root)) })
	w := byTitle(workDones(t, s), loadTitle(root))
	require.NotNil(t, w)
	require.Equal(t, "initialize", firstReplyMethod(s), "the initialize result is the first frame: the load's create comes after it")
	require.Greater(t, w.created, 0)
	checkWorkDone(t, c, w, time.Minute)
	require.Equal(t, "31 of 31 directories checked", w.values[len(w.values)-1].Message, "every directory of the tree, the root's too: %+v", w.values)

	fresh := start(t, withRoot(root), withWorkDoneProgress())
	fc := answerCreates(fresh, 0, func(json.RawMessage) map[string]any { return map[string]any{"result": nil} })
	defer fc.close()
	fresh.call(t, "tools/read", map[string]any{"path": filepath.Join(root, ".gitignore")}) // lists nothing; anything initialize started is on the wire by now
	require.Empty(t, workDones(t, fresh), "a root with nothing stored starts no walk at initialize")
}

// firstReplyMethod names what the server's first frame is: "initialize"
// when it is the reply to the initialize request (the harness's first
// request), else the frame's method.
func firstReplyMethod(s *server) string {
	fs := s.frames()
	if len(fs) == 0 {
		return ""
	}
	if fs[0].Method == "" && len(fs[0].Result) > 0 && json.Valid(fs[0].Result) {
		var r struct {
			ServerInfo json.RawMessage `json:"serverInfo"`
		}
		if json.Unmarshal(fs[0].Result, &r) == nil && r.ServerInfo != nil {
			return "initialize"
		}
	}
	return fs[0].Method
}

// TestPrewarmSeesEveryChange (issue 50): the first grep of a server whose
// file table initialize started loading equals, byte for byte, a grep of a
// server that walks the tree (its data dir unusable), with changes made
// while no server ran (found by the stamps) and changes made right after
// initialize answered, while the load runs on idle threads (found by a
// stamp or by an event). Several rounds: in at least one, the changes were
// made before the client saw the load end.
//
// Checks SPEC §12.
func TestPrewarmSeesEveryChange(t *testing.T) {
	if !fileTableBuild {
		t.Skip("a build without file tables stores none to load")
	}
	root, dataDir := knownTree(t, 40, 25)
	put := func(rel, content string) {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	time.Sleep(restartGap)
	// While no server runs.
	put("d000/f000.txt", "foo 0\nPM_RESUMX 0\n") // same size, new time
	require.NoError(t, os.Remove(filepath.Join(root, "d002/f002.txt")))
	require.NoError(t, os.Rename(filepath.Join(root, "d003"), filepath.Join(root, "d003renamed")))
	put("d004/new.txt", "PM_RESUME new\n")
	put("d005/.gitignore", "f01*.txt\n")

	blocked := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(blocked, nil, 0o600))
	cold := filepath.Join(blocked, "data")
	during := 0
	for round := range 3 {
		s := start(t, withRoot(root), withDataDir(dataDir), withWorkDoneProgress())
		c := answerCreates(s, 0, func(json.RawMessage) map[string]any { return map[string]any{"result": nil} })
		// While the load runs (initialize has just answered).
		put(fmt.Sprintf("d01%d/f001.txt", round), fmt.Sprintf("foo 1\nPM_RESUME %d\n", round+10))
		put(fmt.Sprintf("d02%d/late%d.txt", round, round), "PM_RESUME late\n")
		require.NoError(t, os.Remove(filepath.Join(root, fmt.Sprintf("d03%d/f004.txt", round))))
		put(fmt.Sprintf("d00%d/x.log", 6+round), "PM_RESUME in a log\n")
		if !ended(t, s, loadTitle(root)) {
			during++
		}
		scan := start(t, withRoot(root), withDataDir(cold))
		for _, p := range []string{`PM_RESUME`, `PM_RESUM.`, `late|new`} {
			params := map[string]any{"pattern": p, "outputMode": "count"}
			require.Equal(t, string(scan.call(t, "tools/grep", params)), string(s.call(t, "tools/grep", params)), "round %d, params %v", round, params)
		}
		glob := map[string]any{"pattern": "**/*"}
		require.Equal(t, string(scan.call(t, "tools/glob", glob)), string(s.call(t, "tools/glob", glob)), "round %d", round)
		waitFor(t, "the end of the load's progress", func() bool { return ended(t, s, loadTitle(root)) })
		c.close()
		s.stop(t)
		scan.stop(t)
	}
	require.Positive(t, during, "in some round the changes were made before the load was seen to end")
}

// TestPrewarmEndsAtShutdown (issue 50): a shutdown sent as soon as the
// load of the stored file table has begun ends the load (if it still
// runs): its progress is ended before the shutdown is acknowledged, and the
// table left in the data dir still serves the next server, whose load
// checks every directory and whose first grep equals a walking server's.
//
// Checks SPEC §12.
func TestPrewarmEndsAtShutdown(t *testing.T) {
	if !fileTableBuild {
		t.Skip("a build without file tables stores none to load")
	}
	root, dataDir := knownTree(t, 30, 20)
	s := start(t, withRoot(root), withDataDir(dataDir), withWorkDoneProgress())
	c := answerCreates(s, 0, func(json.RawMessage) map[string]any { return map[string]any{"result": nil} })
	waitFor(t, "the load's begin", func() bool { w := byTitle(workDones(t, s), loadTitle(root)); return w != nil })
	id := s.sendRaw("shutdown", nil)
	s.wait(t, id)
	c.close()
	w := byTitle(workDones(t, s), loadTitle(root))
	require.NotNil(t, w, "the load began: %v", workDones(t, s))
	require.Equal(t, "end", w.values[len(w.values)-1].Kind)
	require.Less(t, w.at[len(w.at)-1], frameIndex(s, id), "the load's end comes before the shutdown's reply")
	s.stop(t)

	next := start(t, withRoot(root), withDataDir(dataDir), withWorkDoneProgress())
	nc := answerCreates(next, 0, func(json.RawMessage) map[string]any { return map[string]any{"result": nil} })
	defer nc.close()
	waitFor(t, "the end of the next load's progress", func() bool { return ended(t, next, loadTitle(root)) })
	nw := byTitle(workDones(t, next), loadTitle(root))
	require.Equal(t, "31 of 31 directories checked", nw.values[len(nw.values)-1].Message)
	blocked := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(blocked, nil, 0o600))
	scan := start(t, withRoot(root), withDataDir(filepath.Join(blocked, "data")))
	params := map[string]any{"pattern": "PM_RESUME", "outputMode": "count"}
	require.Equal(t, string(scan.call(t, "tools/grep", params)), string(next.call(t, "tools/grep", params)))
}
