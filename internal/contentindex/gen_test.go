package contentindex

import (
	"math/rand/v2"
	"regexp"
	"strings"
)

// tokens are what generated files are made of: mixed case, the ASCII
// letters with non-ASCII case partners (k K U+212A, s S U+017F), other
// Unicode folds, line ends, bytes that are not UTF-8, NUL (binary), and
// near misses of literals.
var tokens = []string{
	"foo", "Foo", "FOO", "bar", "BAR", "baz", "k", "K", "\u212a", "s", "S", "\u017f",
	"é", "É", "ß", "ẞ", "Ω", "ω", "\u03a3", "_x", "x_", "pm_resume", "PM_RESUME", "Resume",
	"\r\n", "\n", "\n\n", " ", "\t", "0", "123", "\xff", "\xfe\xfd", "été", "a", "b", "ab",
	"abc", "xyz", "func", "(", ")", "{", "}", "=", "kelvin", "SKIP", "\u212aelvin", "\uFFFD",
	// Near misses of pm_resume, which share its 4-grams and 5-grams.
	"pm_restore", "_resu", "m_re", "x_resume",
}

// genText returns random text of about n tokens; binary reports whether a
// NUL was added.
func genText(r *rand.Rand, n int) []byte {
	text := genFrom(r, tokens, n)
	if r.IntN(40) == 0 {
		text += "\x00"
	}
	return []byte(text)
}

// genFrom returns n random tokens of toks, joined.
func genFrom(r *rand.Rand, toks []string, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(toks[r.IntN(len(toks))])
	}
	return b.String()
}

var atoms = []string{
	`.`, `[a-z]`, `[A-Z]`, `[0-9]`, `[kK]`, `[sS]`, `[^a]`, `\w`, `\W`, `\d`, `\s`, `[[:alpha:]]`,
	`\pL`, `\p{Greek}`, `[é-ë]`, `[ßẞ]`, `\n`, `\r`, `\x{212a}`, `\x{17f}`, `\x{fffd}`, `[\x{fffd}x]`,
	`^`, `$`, `\b`, `\B`, `\A`, `\z`, `(?:)`, `[^\n]`, `[\s\S]`,
}

// genPattern returns a random RE2 pattern of about depth levels.
func genPattern(r *rand.Rand, depth int) string {
	if depth <= 0 || r.IntN(4) == 0 {
		if r.IntN(3) > 0 {
			t := tokens[r.IntN(len(tokens))]
			if len(t) > 2 && r.IntN(3) == 0 {
				i := r.IntN(len(t))
				t = strings.ToValidUTF8(t[i:], "")
			}
			return regexp.QuoteMeta(t)
		}
		return atoms[r.IntN(len(atoms))]
	}
	switch r.IntN(9) {
	case 0, 1, 2:
		return genPattern(r, depth-1) + genPattern(r, depth-1)
	case 3:
		return "(?:" + genPattern(r, depth-1) + "|" + genPattern(r, depth-1) + ")"
	case 4:
		return "(?:" + genPattern(r, depth-1) + ")" + []string{"*", "+", "?", "{2}", "{1,3}", "{0,2}", "+?"}[r.IntN(7)]
	case 5:
		return "(?i:" + genPattern(r, depth-1) + ")"
	case 6:
		return "(?s:" + genPattern(r, depth-1) + ")"
	case 7:
		return "(" + genPattern(r, depth-1) + ")"
	default:
		return genPattern(r, depth-1) + genPattern(r, depth-1) + genPattern(r, depth-1)
	}
}
