package rpc

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestIDKey(t *testing.T) {
	same := [][]string{
		{"7", "7.0", "70e-1", "0.7e1", "7.000e0", "7E+0"},
		{"10", "1e1", "1E1", "10.0", "100e-1", "0.1e2"},
		{"0", "-0", "0.0", "0e5", "-0.0e-3"},
		{"-1.5", "-15e-1", "-0.15e1"},
		{"18446744073709551616", "1.8446744073709551616e19"},
		{`"é"`, `"\u00e9"`, `"\u00E9"`},
		{`"a/b"`, `"a\/b"`, `"\u0061\u002f\u0062"`},
		{`"<&>"`, `"\u003c\u0026\u003e"`},
		{`"😀"`, `"\ud83d\ude00"`, `"\uD83D\uDE00"`},
		{`"\n"`, `"\u000a"`},
	}
	for _, group := range same {
		for _, id := range group {
			require.Equal(t, idKey(group[0]), idKey(id), "%s vs %s", group[0], id)
		}
	}
	apart := []string{`"7"`, "7", "7.5", "-7", "70", "0.07", `"7.0"`, "18446744073709551617", "1e999999999999999999999",
		`"é"`, `"e\u0301"`, `"E"`, `"\u0065"`}
	seen := map[string]string{}
	for _, id := range apart {
		k := idKey(id)
		require.NotContains(t, seen, k, "%s and %s share key %s", id, seen[k], k)
		seen[k] = id
	}
	require.Equal(t, "1e999999999999999999999", idKey("1e999999999999999999999"), "an exponent past the bound keeps its text")
}

// FuzzIDKey checks idKey against math/big and encoding/json: two numbers
// share a key exactly when they are equal (for exponents big.Rat can
// afford), two strings exactly when they decode to the same string, and a
// key never merges a string with a number.
func FuzzIDKey(f *testing.F) {
	for _, s := range [][2]string{{"7", "7.0"}, {"1e1", "10"}, {"-0", "0"}, {"0.5e1", "5"}, {"1.25e-3", "0.00125"}, {`"7"`, "7"}, {"12e", "12"},
		{`"é"`, `"\u00e9"`}, {`"a\/b"`, `"a/b"`}, {`"e\u0301"`, `"é"`}, {`"\ud800"`, `"\ufffd"`}, {`"\u00"`, `"x"`}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ka, kb := idKey(a), idKey(b)
		ra, oka := ratOf(a)
		rb, okb := ratOf(b)
		if oka && okb {
			require.Equal(t, ra.Cmp(rb) == 0, ka == kb, "%q (%s) vs %q (%s)", a, ka, b, kb)
		}
		var sa, sb string
		if len(a) > 0 && a[0] == '"' && json.Unmarshal([]byte(a), &sa) == nil &&
			len(b) > 0 && b[0] == '"' && json.Unmarshal([]byte(b), &sb) == nil {
			require.Equal(t, sa == sb, ka == kb, "%q (%s) vs %q (%s)", a, ka, b, kb)
		}
		if len(a) > 0 && a[0] == '"' && okb {
			require.NotEqual(t, ka, kb)
		}
	})
}

// ratOf parses a JSON number with a small exponent, the oracle of FuzzIDKey.
func ratOf(s string) (*big.Rat, bool) {
	if _, ok := numberKey(s); !ok {
		return nil, false
	}
	for i := 0; i < len(s); i++ {
		if (s[i] == 'e' || s[i] == 'E') && len(s)-i > 5 {
			return nil, false
		}
	}
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}
