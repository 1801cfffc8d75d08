//go:build linux && !toolrpc_portable

package filetable

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/walk"
)

// savedTree writes a tree, builds its table through a stored set and
// closes the set (which saves it); it returns the root and the store.
func savedTree(t *testing.T, n int) (root, store string) {
	root = deferredTree(t, n)
	store = filepath.Join(t.TempDir(), "files")
	first := NewStoredSet([]string{root}, func(string) string { return store }, nil)
	first.DeferBuilds()
	setListed(t, first, root)
	first.BuildDeferred(root)
	setListed(t, first, root) // waits for the build
	first.Close()
	_, err := os.Stat(store)
	require.NoError(t, err, "the closed set saved its table")
	return root, store
}

// holdIdle makes every idle worker wait before each file until release
// is called or the worker is told to stop (a thread that is given a core
// only then), and counts the files they reached; it is undone with the
// test.
func holdIdle(t *testing.T) (reached *atomic.Int64, release func()) {
	idleFileHook, reached, release = heldHook()
	t.Cleanup(func() {
		release()
		idleFileHook = nil
	})
	return reached, release
}

// heldHook returns a hook for an idle thread's steps that waits until
// release is called or the thread is told to stop, and counts the steps
// reached.
func heldHook() (hook func(stop *atomic.Bool), reached *atomic.Int64, release func()) {
	gate := make(chan struct{})
	reached = &atomic.Int64{}
	hook = func(stop *atomic.Bool) {
		reached.Add(1)
		for !stop.Load() {
			select {
			case <-gate:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}
	var once sync.Once
	return hook, reached, func() { once.Do(func() { close(gate) }) }
}

// listedWhileHeld starts a load of root's stored table (Set.Prewarm)
// and, once an idle thread is held (reached counts its steps), changes a
// file and lists root on another goroutine: the listing must answer while
// the thread stays held (a backstop of a minute, not a speed assertion),
// equal to a cold walk. It returns the set, closed with the test.
func listedWhileHeld(t *testing.T, root, store string, reached *atomic.Int64) *Set {
	s := NewStoredSet([]string{root}, func(string) string { return store }, nil)
	s.DeferBuilds()
	t.Cleanup(s.Close)
	require.True(t, s.Prewarm(root, nil))
	for reached.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(tickGap)
	require.NoError(t, os.WriteFile(filepath.Join(root, "d0/e0/f0.txt"), []byte("changed while an idle thread is held\n"), 0o644))
	done := make(chan []walk.File, 1)
	go func() { done <- setListed(t, s, root) }()
	select {
	case files := <-done:
		require.Equal(t, walked(t, root), files)
	case <-time.After(time.Minute):
		t.Fatal("the listing waited for the held idle thread")
	}
	return s
}

// TestPrewarmLoads (issue 50): Prewarm loads a stored table in the
// background, watched and live, with its order made, and hands the whole
// root's listing to then; a change made while no table was live, and one
// made while the idle workers are held mid-load, both show in the first
// listing (equal to a cold walk). A root with nothing stored starts
// nothing.
func TestPrewarmLoads(t *testing.T) {
	exactStamps(t)
	root, store := savedTree(t, 40)
	time.Sleep(tickGap)
	require.NoError(t, os.WriteFile(filepath.Join(root, "d1/e1/f1.txt"), []byte("while no table was live\n"), 0o644))

	reached, release := holdIdle(t)
	s := NewStoredSet([]string{root}, func(string) string { return store }, nil)
	s.DeferBuilds()
	t.Cleanup(s.Close)
	got := make(chan walk.Files, 1)
	require.True(t, s.Prewarm(root, func(f walk.Files) { got <- f }))
	for reached.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	// An idle worker is held before its first file: the load runs.
	require.NoError(t, os.WriteFile(filepath.Join(root, "d2/e2/f2.txt"), []byte("during the load, a longer text\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "d3/new.txt"), []byte("new\n"), 0o644))
	release()
	files := <-got
	listing := make([]walk.File, files.Len())
	for i := range listing {
		listing[i] = files.At(i)
	}
	require.Equal(t, walked(t, root), listing, "then is given the whole root's listing, taken once the load ended")
	st, _ := s.Stats(root)
	require.Equal(t, "live", st.State)
	require.Equal(t, 1, st.Loads)
	require.Equal(t, st.Dirs, st.Watches, "the load watched every directory")
	require.Equal(t, walked(t, root), setListed(t, s, root))

	fresh := NewStoredSet([]string{root}, func(string) string { return filepath.Join(t.TempDir(), "none") }, nil)
	t.Cleanup(fresh.Close)
	require.False(t, fresh.Prewarm(root, nil), "nothing stored: no load, and no walk")
	_, made := fresh.Stats(root)
	require.False(t, made, "not even an unbuilt table")
}

// TestPrewarmListingNeverWaitsForIdle (issue 50): a listing that comes
// while the load's idle workers are held (given a core only once told to
// stop) finishes the load on its own goroutines: the idle workers give
// back the directories they held at their next file, having judged none,
// and the listing answers, equal to a cold walk. As a lazy load's call,
// it leaves the watches of the directories it judged to its
// BuildDeferred, which adds them and sees a change made meanwhile.
func TestPrewarmListingNeverWaitsForIdle(t *testing.T) {
	exactStamps(t)
	root, store := savedTree(t, 60)
	reached, _ := holdIdle(t)
	s := listedWhileHeld(t, root, store, reached)
	require.LessOrEqual(t, reached.Load(), int64(runtime.NumCPU()), "each idle worker reached one file, then gave its directory back")
	st, _ := s.Stats(root)
	require.Equal(t, 1, st.Loads)
	require.Less(t, st.Watches, st.Dirs, "the call watched none of the directories it judged")

	time.Sleep(tickGap)
	require.NoError(t, os.WriteFile(filepath.Join(root, "d1/e1/f1.txt"), []byte("changed before the watches\n"), 0o644))
	s.BuildDeferred(root)
	require.Equal(t, walked(t, root), setListed(t, s, root)) // waits for the watches
	st, _ = s.Stats(root)
	require.Equal(t, st.Dirs, st.Watches, "BuildDeferred watched the rest")
}

// TestPrewarmEndsAtClose (issue 50): Close during a load ends it: the idle
// workers, held mid-load, stop at their next file once let go, having
// judged almost nothing, and Close returns with the table closed, not
// loaded. The store is left as it was, for the next server.
func TestPrewarmEndsAtClose(t *testing.T) {
	exactStamps(t) // every directory's files are stat'ed: the hook is reached
	root, store := savedTree(t, 200)
	before, err := os.ReadFile(store)
	require.NoError(t, err)
	reached, _ := holdIdle(t)
	s := NewStoredSet([]string{root}, func(string) string { return store }, nil)
	s.DeferBuilds()
	require.True(t, s.Prewarm(root, nil))
	for reached.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	t0 := reached.Load()
	closed := make(chan struct{})
	go func() {
		s.Close()
		close(closed)
	}()
	<-closed // the held idle workers are let go by the stop Close gives them
	require.LessOrEqual(t, reached.Load(), t0+int64(runtime.NumCPU()), "the idle workers stopped at their next file")
	st, ok := s.Stats(root)
	require.False(t, ok, "a closed set holds no table: %+v", st)
	after, err := os.ReadFile(store)
	require.NoError(t, err)
	require.Equal(t, before, after, "a load that was ended saves nothing")
}

// TestPrewarmListingStopsIdleRead (issue 50): a listing that comes while
// the idle thread still decodes the stored table (held there: a thread
// given a core only once told to stop), and whose priority the kernel
// does not let the server raise, reads the table itself, as without
// Prewarm, and answers, equal to a cold walk; the idle read stops at its
// next directory, so it never decodes the table a second time beside the
// call.
func TestPrewarmListingStopsIdleRead(t *testing.T) {
	exactStamps(t)
	root, store := savedTree(t, 60)
	raiseThread = func(int) bool { return false }
	t.Cleanup(func() { raiseThread = unidleThread })
	hook, decoded, release := heldHook()
	idleDecodeHook = hook
	t.Cleanup(func() {
		release()
		idleDecodeHook = nil
	})
	s := listedWhileHeld(t, root, store, decoded)
	release()
	s.building.Wait() // the load's goroutine waits for the idle read to end
	require.LessOrEqual(t, decoded.Load(), int64(2), "the idle read stopped at its next directory")
}

// TestPrewarmListingWaitsForRaisedRead (issue 50): a listing that comes
// while the idle thread still decodes the stored table, where the kernel
// lets the server give that thread its own priority (the thread, held
// until then, runs once raised), waits for that read and takes what it
// decoded: the idle read decodes every directory, the call reads the file
// no second time, and the listing equals a cold walk. Before, the read was
// stopped at its next directory and the call decoded the table again.
func TestPrewarmListingWaitsForRaisedRead(t *testing.T) {
	exactStamps(t)
	root, store := savedTree(t, 60)
	var raised atomic.Bool
	raiseThread = func(int) bool { raised.Store(true); return true }
	t.Cleanup(func() { raiseThread = unidleThread })
	decoded := &atomic.Int64{}
	idleDecodeHook = func(stop *atomic.Bool) {
		decoded.Add(1)
		for !stop.Load() && !raised.Load() {
			time.Sleep(time.Millisecond)
		}
	}
	t.Cleanup(func() { idleDecodeHook = nil })
	s := listedWhileHeld(t, root, store, decoded)
	require.True(t, raised.Load())
	st, _ := s.Stats(root)
	require.Equal(t, 1, st.Loads)
	require.GreaterOrEqual(t, decoded.Load(), int64(st.Dirs), "the idle read decoded every directory")
}
