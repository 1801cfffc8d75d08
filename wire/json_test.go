package wire

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUnescape checks SPEC §1's one encoding: the HTML escapes become their
// characters, every other escape and an escaped backslash stay.
func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{
		`"a\u003cb\u0026c\u003e"`: `"a<b&c>"`,
		`"\u003C"`:                `"<"`,
		`"\\u003c"`:               `"\\u003c"`,
		`"\\\u003c"`:              `"\\<"`,
		`"\u0041\n\u001b"`:        `"\u0041\n\u001b"`,
		`{"x":"\u00"}`:            `{"x":"\u00"}`,
		`plain`:                   `plain`,
	} {
		require.Equal(t, want, string(Unescape([]byte(in))), in)
	}
}

// FuzzUnescape checks SPEC §1: json.Marshal's text, unescaped, decodes to
// the same string and holds no HTML escape; Marshal writes it so at once.
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{"a<b", `\u003c`, `\\u003c&`, "\u2028<>&\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := json.Marshal(s)
		require.NoError(t, err)
		u := Unescape(bytes.Clone(b))
		var want, back string
		require.NoError(t, json.Unmarshal(b, &want))
		require.NoError(t, json.Unmarshal(u, &back))
		require.Equal(t, want, back)
		for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`} {
			require.NotContains(t, strings.ReplaceAll(string(u), `\\`, ""), esc)
		}
		m, err := Marshal(s)
		require.NoError(t, err)
		require.Equal(t, string(m), string(u))
	})
}
