package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// progressInterval is limits.ProgressReportInterval as SPEC §12 states it:
// at most two reports a second per build.
const progressInterval = 500 * time.Millisecond

// progressTree writes files files of about size bytes of random words under
// a fresh root and returns its real path: enough text that an index build
// runs for a while.
func progressTree(t *testing.T, files, size int) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(27, 6))
	words := []string{"alpha", "Beta", "gamma_", "DELTA", "pm_resume", "sched", "entity", "\n", " ", "()", "{}", "0x1f"}
	for i := range files {
		var b strings.Builder
		for b.Len() < size {
			b.WriteString(words[r.IntN(len(words))])
			fmt.Fprintf(&b, "%d", r.IntN(100000))
		}
		p := filepath.Join(root, fmt.Sprintf("d%02d/f%05d.txt", i%40, i))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
	}
	return root
}

// withWorkDoneProgress declares capabilities.window.workDoneProgress.
func withWorkDoneProgress() option {
	return withInitParams(func(p map[string]any) {
		p["capabilities"] = map[string]any{"window": map[string]any{"workDoneProgress": true}}
	})
}

// creates answers every window/workDoneProgress/create request of s with
// answer(id) — a result or an error member — after delay, and records at
// which frame of s.frames() each token was answered.
type creates struct {
	s      *server
	delay  time.Duration
	answer func(id json.RawMessage) map[string]any

	mu       sync.Mutex
	answered map[string]int // token -> len(s.frames()) when its reply was written
	stop     chan struct{}
	done     chan struct{}
}

func answerCreates(s *server, delay time.Duration, answer func(id json.RawMessage) map[string]any) *creates {
	c := &creates{s: s, delay: delay, answer: answer, answered: map[string]int{}, stop: make(chan struct{}), done: make(chan struct{})}
	go c.loop()
	return c
}

func (c *creates) loop() {
	defer close(c.done)
	seen := 0
	for {
		fs := c.s.frames()
		for ; seen < len(fs); seen++ {
			f := fs[seen]
			if f.Method != "window/workDoneProgress/create" || f.ID == nil {
				continue
			}
			var p struct {
				Token json.RawMessage `json:"token"`
			}
			_ = json.Unmarshal(f.Params, &p)
			time.Sleep(c.delay)
			c.mu.Lock()
			c.answered[compact(p.Token)] = len(c.s.frames())
			c.mu.Unlock()
			msg := c.answer(f.ID)
			msg["jsonrpc"], msg["id"] = "2.0", f.ID
			c.s.writeMsg(msg)
		}
		select {
		case <-c.stop:
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func (c *creates) close() {
	close(c.stop)
	<-c.done
}

func (c *creates) answeredAt(token string) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.answered[token]
	return n, ok
}

// workDone is one token's work-done progress as the client saw it.
type workDone struct {
	token   string
	created int // index of the create request in frames
	values  []progressValue
	at      []int // index in frames of each value
}

type progressValue struct {
	Kind       string `json:"kind"`
	Title      string `json:"title"`
	Message    string `json:"message"`
	Percentage *int   `json:"percentage"`
}

// workDones collects, per token the server created, its create and its
// $/progress values in frame order.
func workDones(t *testing.T, s *server) map[string]*workDone {
	out := map[string]*workDone{}
	for i, f := range s.frames() {
		var p struct {
			Token json.RawMessage `json:"token"`
			Value json.RawMessage `json:"value"`
		}
		switch f.Method {
		case "window/workDoneProgress/create":
			require.NoError(t, json.Unmarshal(f.Params, &p))
			out[compact(p.Token)] = &workDone{token: compact(p.Token), created: i}
		case "$/progress":
			require.NoError(t, json.Unmarshal(f.Params, &p))
			w := out[compact(p.Token)]
			require.NotNil(t, w, "$/progress for token %s, which the server never created: %s", p.Token, f.Raw)
			w.values = append(w.values, decode[progressValue](t, p.Value))
			w.at = append(w.at, i)
		}
	}
	return out
}

// byTitle returns the work-done progress whose begin has title.
func byTitle(ws map[string]*workDone, title string) *workDone {
	for _, w := range ws {
		if len(w.values) > 0 && w.values[0].Title == title {
			return w
		}
	}
	return nil
}

// waitFor polls cond until it holds; the backstop is not a speed assertion.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(indexBackstop); !cond(); {
		require.True(t, time.Now().Before(deadline), "waiting for %s", what)
		time.Sleep(20 * time.Millisecond)
	}
}

// waitIndexed waits until s has written its root's index.
func waitIndexed(t *testing.T, s *server) {
	t.Helper()
	waitFor(t, "the index build", func() bool {
		m, _ := filepath.Glob(filepath.Join(s.DataDir, "index", "*", "index"))
		return len(m) == 1
	})
}

// ended reports whether the server sent an end for the progress titled title.
func ended(t *testing.T, s *server, title string) bool {
	w := byTitle(workDones(t, s), title)
	return w != nil && w.values[len(w.values)-1].Kind == "end"
}

// TestWorkDoneProgress (issue 27): a client that declared
// window.workDoneProgress sees the content index build of its root as LSP
// work-done progress: a create request with a fresh token, and — only after
// its reply — begin (percentage 0, title "Indexing <root>"), reports whose
// percentages never fall and never pass 100, and end, all with that token.
// The file table's walk is shown the same way. Reports come at most every
// 500 ms: their count is bounded by the time between begin and end. A grep
// answers byte for byte as for a client without the capability.
//
// Checks SPEC §12.
func TestWorkDoneProgress(t *testing.T) {
	root := progressTree(t, 6000, 8*1024)
	s := start(t, withRoot(root), withWorkDoneProgress())
	plain := start(t, withRoot(root))
	c := answerCreates(s, 100*time.Millisecond, func(json.RawMessage) map[string]any { return map[string]any{"result": nil} })
	defer c.close()

	grep := map[string]any{"pattern": "pm_resume1[0-9]", "outputMode": "count", "headLimit": 5}
	started := time.Now()
	got := s.call(t, "tools/grep", grep)
	waitFor(t, "the end of the index build's progress", func() bool { return ended(t, s, "Indexing "+root) })
	elapsed := time.Since(started)
	require.Equal(t, string(plain.call(t, "tools/grep", grep)), string(got), "progress never enters a result")

	ws := workDones(t, s)
	index := byTitle(ws, "Indexing "+root)
	require.NotNil(t, index)
	checkWorkDone(t, c, index, elapsed)
	require.NotEmpty(t, index.values[1:len(index.values)-1], "a build of %d files reports how far it is: %+v", 6000, index.values)
	last := index.values[len(index.values)-2]
	require.NotNil(t, last.Percentage, "the index build knows its total: %+v", index.values)
	require.Equal(t, "6000 of 6000 files", index.values[len(index.values)-1].Message)
	t.Logf("index build: %d reports in %v", len(index.values)-2, elapsed)

	table := byTitle(ws, "Listing files in "+root)
	if !fileTableBuild {
		require.Nil(t, table, "a build that keeps no file table shows no table walk: %v", ws)
		return
	}
	require.NotNil(t, table, "the file table's walk is shown too (Linux builds keep tables): %v", ws)
	checkWorkDone(t, c, table, elapsed)
	for _, v := range table.values[1:] {
		require.Nil(t, v.Percentage, "a walk does not know its total: %+v", v)
	}
}

// checkWorkDone checks one token's sequence: created, answered, then begin,
// reports and end in order, percentages rising within 0..100, and no more
// reports than elapsed allows.
func checkWorkDone(t *testing.T, c *creates, w *workDone, elapsed time.Duration) {
	t.Helper()
	require.GreaterOrEqual(t, len(w.values), 2, "begin and end: %+v", w.values)
	answered, ok := c.answeredAt(w.token)
	require.True(t, ok, "token %s was answered", w.token)
	require.Greater(t, w.at[0], answered-1, "no $/progress for %s before the client's reply to create (frame %d, reply after frame %d)", w.token, w.at[0], answered)
	require.Greater(t, w.at[0], w.created)
	begin := w.values[0]
	require.Equal(t, "begin", begin.Kind)
	require.NotNil(t, begin.Percentage)
	require.Equal(t, 0, *begin.Percentage)
	prev := 0
	for i, v := range w.values[1:] {
		want := "report"
		if i == len(w.values)-2 {
			want = "end"
		}
		require.Equal(t, want, v.Kind, "value %d of %+v", i+1, w.values)
		if v.Percentage != nil {
			require.GreaterOrEqual(t, *v.Percentage, prev, "percentages never fall")
			require.LessOrEqual(t, *v.Percentage, 100)
			prev = *v.Percentage
		}
	}
	reports := len(w.values) - 2
	require.LessOrEqual(t, reports, int(elapsed/progressInterval)+1, "at most 2 reports a second over %v", elapsed)
}

// TestWorkDoneProgressNotDeclared (issue 27): a client that did not declare
// window.workDoneProgress gets neither a create request nor a $/progress
// outside its calls, while the table and the index are built.
//
// Checks SPEC §12.
func TestWorkDoneProgressNotDeclared(t *testing.T) {
	root := progressTree(t, 300, 1024)
	s := start(t, withRoot(root))
	s.call(t, "tools/grep", map[string]any{"pattern": "pm_resume1"})
	waitIndexed(t, s)
	s.call(t, "tools/grep", map[string]any{"pattern": "pm_resume1"}) // a round trip after the build
	for _, f := range s.frames() {
		require.NotEqual(t, "window/workDoneProgress/create", f.Method)
		require.NotEqual(t, "$/progress", f.Method, "%s", f.Raw)
	}
}

// TestWorkDoneProgressRefused (issue 27): a client that answers create with
// an error gets no $/progress for that token.
//
// Checks SPEC §12.
func TestWorkDoneProgressRefused(t *testing.T) {
	root := progressTree(t, 300, 1024)
	s := start(t, withRoot(root), withWorkDoneProgress())
	c := answerCreates(s, 0, func(json.RawMessage) map[string]any {
		return map[string]any{"error": map[string]any{"code": -32603, "message": "no progress UI"}}
	})
	defer c.close()
	s.call(t, "tools/grep", map[string]any{"pattern": "pm_resume1"})
	waitIndexed(t, s)
	builds := 1 // the index build asks
	if fileTableBuild {
		builds++ // and so does the file table's walk
	}
	waitFor(t, "every create answered", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.answered) == builds
	})
	s.call(t, "tools/grep", map[string]any{"pattern": "pm_resume1"}) // a round trip after the refusals
	time.Sleep(2 * progressInterval)                                 // a report would be due by now
	var creates int
	for _, f := range s.frames() {
		require.NotEqual(t, "$/progress", f.Method, "%s", f.Raw)
		if f.Method == "window/workDoneProgress/create" {
			creates++
		}
	}
	require.Equal(t, builds, creates, "the index build and, where the build keeps one, the table walk each asked")
}

// TestMCPBuildLog (issue 27): an MCP client that set its log level to info
// receives a notifications/message (level info, logger "toolrpc") when the
// index build of its root begins and when it ends, in that order.
//
// Checks SPEC §12.
func TestMCPBuildLog(t *testing.T) {
	root := progressTree(t, 300, 1024)
	s := mcpStart(t, mcpOptions{roots: []string{root}})
	ctx, cancel := context.WithTimeout(context.Background(), replyWait)
	defer cancel()
	require.NotNil(t, s.cs.InitializeResult().Capabilities.Logging, "the server declares the logging capability")
	require.NoError(t, s.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}))
	s.ok(t, "grep", map[string]any{"pattern": "pm_resume1"})
	type logged struct {
		Level  string `json:"level"`
		Logger string `json:"logger"`
		Data   struct {
			Kind, Title, Message string
		} `json:"data"`
	}
	title := "Indexing " + root
	var got []logged
	waitFor(t, "the end of the index build", func() bool {
		got = got[:0]
		for _, m := range s.rec.messages() {
			req, ok := m.msg.(*jsonrpc.Request)
			if m.out || !ok || req.Method != "notifications/message" {
				continue
			}
			got = append(got, decode[logged](t, req.Params))
		}
		for _, l := range got {
			if l.Data.Title == title && l.Data.Kind == "end" {
				return true
			}
		}
		return false
	})
	var kinds []string
	for _, l := range got {
		require.Equal(t, "info", l.Level)
		require.Equal(t, "toolrpc", l.Logger)
		if l.Data.Title == title {
			kinds = append(kinds, l.Data.Kind+" "+l.Data.Message)
		}
	}
	require.Equal(t, []string{"begin 0 files listed", "end 300 of 300 files"}, kinds)
}

// TestFirstGrepAnswersBeforeTheIndexBuild (issue 35): the first grep of a
// root on a fresh data dir does only what a grep without an index does —
// the content index build it asks for starts once the grep has answered:
// the server asks to create the build's progress token only after the
// grep's reply, and the build then runs to its end. The answer is the one
// a server that never builds gives (its data dir cannot hold an index).
//
// Checks SPEC §12.
func TestFirstGrepAnswersBeforeTheIndexBuild(t *testing.T) {
	root := progressTree(t, 4000, 8*1024)
	s := start(t, withRoot(root), withWorkDoneProgress())
	c := answerCreates(s, 0, func(json.RawMessage) map[string]any { return map[string]any{"result": nil} })
	defer c.close()
	noIndex := filepath.Join(t.TempDir(), "data")
	require.NoError(t, os.WriteFile(noIndex, nil, 0o600)) // a file where the data dir would be
	plain := start(t, withRoot(root), withDataDir(noIndex))

	grep := map[string]any{"pattern": "pm_resume1[0-9]", "outputMode": "count"}
	got := s.call(t, "tools/grep", grep)
	reply := -1
	for i, f := range s.frames() {
		if f.Method == "" && f.ID != nil && f.Result != nil && compact(f.Result) == compact(got) {
			reply = i
		}
	}
	require.GreaterOrEqual(t, reply, 0, "the grep's reply is among the frames")
	waitFor(t, "the end of the index build's progress", func() bool { return ended(t, s, "Indexing "+root) })
	index := byTitle(workDones(t, s), "Indexing "+root)
	require.NotNil(t, index)
	require.Greater(t, index.created, reply, "the build's progress is created after the grep's reply (frame %d), not at frame %d", reply, index.created)
	require.Equal(t, string(plain.call(t, "tools/grep", grep)), string(got))
}
