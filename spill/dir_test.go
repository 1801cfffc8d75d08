package spill

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/limits"
)

func TestWriteLayoutAndModes(t *testing.T) {
	data := t.TempDir()
	d := New(data, "s1")
	_, err := os.Stat(d.Path())
	require.ErrorIs(t, err, os.ErrNotExist, "nothing exists before the first spill")

	big := bytes.Repeat([]byte("x"), limits.SpillMaxBytes+100)
	p, err := d.Write("bash-stdout", big)
	require.NoError(t, err)
	require.Regexp(t, regexp.MustCompile(`^`+regexp.QuoteMeta(filepath.Join(data, "scratch", "s1", "tool-output"))+`/bash-stdout-\d{13}-1\.log$`), p)
	fi, err := os.Stat(p)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	require.Equal(t, int64(limits.SpillMaxBytes), fi.Size())
	for _, dir := range []string{d.Path(), filepath.Dir(p)} {
		di, err := os.Stat(dir)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o700), di.Mode().Perm())
	}
	p2, err := d.Write("bash-stderr", []byte("e"))
	require.NoError(t, err)
	require.Regexp(t, `/bash-stderr-\d{13}-2\.log$`, p2)

	require.NoError(t, d.Remove())
	_, err = os.Stat(d.Path())
	require.ErrorIs(t, err, os.ErrNotExist)
}

func TestSweep(t *testing.T) {
	old := unlockedGrace
	unlockedGrace = 0
	t.Cleanup(func() { unlockedGrace = old })
	data := t.TempDir()

	live := New(data, "live")
	_, err := live.Write("bash-stdout", []byte("live"))
	require.NoError(t, err)

	crashed := New(data, "crashed")
	_, err = crashed.Write("bash-stdout", []byte("crashed"))
	require.NoError(t, err)
	require.NoError(t, crashed.lock.Close()) // the process died: its flock is gone

	bare := filepath.Join(data, "scratch", "bare")
	require.NoError(t, os.MkdirAll(bare, 0o700))
	past := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(bare, past, past))

	me := New(data, "me")
	_, err = me.Write("bash-stdout", []byte("me"))
	require.NoError(t, err)

	removed, err := me.Sweep()
	require.NoError(t, err)
	require.ElementsMatch(t, []string{crashed.Path(), bare}, removed)
	for _, keep := range []string{live.Path(), me.Path()} {
		_, err := os.Stat(keep)
		require.NoError(t, err, "a live session's dir is kept")
	}

	removed, err = live.Sweep()
	require.NoError(t, err)
	require.Empty(t, removed, "neither live server deletes the other's spills")
}

func TestAdoptKeepsRestartedSessionDir(t *testing.T) {
	data := t.TempDir()
	first := New(data, "same")
	_, err := first.Write("bash-stdout", []byte("x"))
	require.NoError(t, err)
	require.NoError(t, first.lock.Close())

	restarted := New(data, "same")
	require.NoError(t, restarted.Adopt())
	other := New(data, "other")
	removed, err := other.Sweep()
	require.NoError(t, err)
	require.Empty(t, removed)
}

func TestEnsureProtectsFromSweep(t *testing.T) {
	old := unlockedGrace
	unlockedGrace = 0
	t.Cleanup(func() { unlockedGrace = old })
	data := t.TempDir()

	writer := New(data, "writer") // e.g. tools/write into scratch, before any spill
	require.NoError(t, writer.Ensure())
	require.NoError(t, os.WriteFile(filepath.Join(writer.Path(), "notes.txt"), []byte("x"), 0o600))
	fi, err := os.Stat(writer.Path())
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), fi.Mode().Perm())

	removed, err := New(data, "other").Sweep()
	require.NoError(t, err)
	require.Empty(t, removed)
	_, err = os.Stat(filepath.Join(writer.Path(), "notes.txt"))
	require.NoError(t, err, "a file written through Ensure survived another server's sweep")
	require.NoError(t, writer.Ensure(), "Ensure is idempotent")
}
