package wire

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestStringMap(t *testing.T) {
	for in, want := range map[string]StringMap{`[]`: {}, `[ ]`: {}, `{}`: {}, `{"A":"b"}`: {"A": "b"}} {
		var m StringMap
		require.NoError(t, json.Unmarshal([]byte(in), &m), in)
		require.Equal(t, want, m, in)
	}
	for _, in := range []string{`["a"]`, `{"A":1}`, `"x"`} {
		var m StringMap
		require.Error(t, json.Unmarshal([]byte(in), &m), in)
	}
}

// FuzzIsEmptyArray: IsEmptyArray is true exactly for JSON arrays of length 0.
func FuzzIsEmptyArray(f *testing.F) {
	for _, s := range []string{"[]", " [ ] ", "[1]", "{}", "[", "[]]", "[\n]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var v []json.RawMessage
		want := json.Unmarshal(b, &v) == nil && v != nil && len(v) == 0
		require.Equal(t, want, IsEmptyArray(b), "%q", b)
	})
}
