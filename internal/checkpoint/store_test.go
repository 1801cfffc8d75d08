package checkpoint

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStoreSaveLoad(t *testing.T) {
	dataDir := t.TempDir()
	st, err := NewStore(dataDir, "sess-1")
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(dataDir, "checkpoints"))
	require.ErrorIs(t, err, os.ErrNotExist, "nothing is created before the first Save")

	data := []byte(`{"checkpointId":"cp.1","messages":[],"stats":{}}`)
	require.NoError(t, st.Save("cp.1", data))
	got, err := st.Load("cp.1")
	require.NoError(t, err)
	require.Equal(t, data, got)

	fi, err := os.Stat(filepath.Join(dataDir, "checkpoints", "sess-1", "cp.1.json"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	di, err := os.Stat(filepath.Join(dataDir, "checkpoints", "sess-1"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), di.Mode().Perm())

	reopened, err := NewStore(dataDir, "sess-1")
	require.NoError(t, err)
	got, err = reopened.Load("cp.1")
	require.NoError(t, err)
	require.Equal(t, data, got, "a new Store on the same dataDir reads the same bytes")

	other, err := NewStore(dataDir, "sess-2")
	require.NoError(t, err)
	_, err = other.Load("cp.1")
	require.ErrorIs(t, err, ErrNotFound, "checkpoints belong to their session")
}

func TestStoreNeverRewrites(t *testing.T) {
	st, err := NewStore(t.TempDir(), "s")
	require.NoError(t, err)
	first := []byte(`{"v":1}`)
	require.NoError(t, st.Save("a", first))
	require.NoError(t, st.Save("a", first), "the same bytes again is an idempotent retry")
	require.ErrorIs(t, st.Save("a", []byte(`{"v":2}`)), ErrExists)
	got, err := st.Load("a")
	require.NoError(t, err)
	require.Equal(t, first, got)

	entries, err := os.ReadDir(st.Dir())
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	require.Equal(t, []string{"a.json"}, names, "no temp file is left behind")
}

func TestStoreConcurrentSaveOneWinner(t *testing.T) {
	st, err := NewStore(t.TempDir(), "s")
	require.NoError(t, err)
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = st.Save("race", []byte(`{"writer":`+string(rune('0'+i))+`}`)) })
	}
	wg.Wait()
	wins := 0
	for _, err := range errs {
		if err == nil {
			wins++
			continue
		}
		require.ErrorIs(t, err, ErrExists)
	}
	require.Equal(t, 1, wins)
}

func TestStoreRejects(t *testing.T) {
	for _, id := range []string{"", ".", "..", "a/b", "../x"} {
		t.Run("session "+id, func(t *testing.T) {
			_, err := NewStore(t.TempDir(), id)
			require.Error(t, err)
		})
	}
	st, err := NewStore(t.TempDir(), "s")
	require.NoError(t, err)
	for _, id := range []string{"", "a/b", "../x", "sp ace", string(make([]byte, 65))} {
		t.Run("checkpoint "+id, func(t *testing.T) {
			require.ErrorIs(t, st.Save(id, []byte(`{}`)), ErrInvalidID)
			_, err := st.Load(id)
			require.ErrorIs(t, err, ErrInvalidID)
		})
	}
	require.ErrorContains(t, st.Save("x", []byte(`{`)), "not valid JSON")
	_, err = st.Load("missing")
	require.ErrorIs(t, err, ErrNotFound)

	require.NoError(t, os.MkdirAll(st.Dir(), 0o700))
	require.NoError(t, os.WriteFile(st.Path("torn"), []byte(`{"half`), 0o600))
	_, err = st.Load("torn")
	require.ErrorContains(t, err, "not valid JSON", "a corrupt file is an error, never sent as a result")
}
