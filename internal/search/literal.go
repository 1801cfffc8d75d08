package search

import (
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// wholeLiteral matches a pattern that is one literal, case-folded or not,
// exactly as regexp matches it on a line, without running regexp: a match
// starts at a rune of the line (decoded from the line's start as regexp
// decodes it: a byte that is not UTF-8 is U+FFFD), and each rune of the text
// equals the literal's rune or, folding, is in its simple fold orbit (k, K
// and U+212A KELVIN SIGN; s, S and U+017F LATIN SMALL LETTER LONG S), as
// regexp's (?i) compares.
type wholeLiteral struct {
	runes  []rune
	orbits [][]rune // per rune, every rune that matches it
	first  [utf8.RuneSelf]bool
	// firstWide: a rune ≥ utf8.RuneSelf (or U+FFFD, an invalid byte) may
	// start a match.
	firstWide bool
}

// newWholeLiteral returns the matcher of re when re (a simplified tree) is
// one literal, or nil.
func newWholeLiteral(re *syntax.Regexp) *wholeLiteral {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpLiteral || len(re.Rune) == 0 {
		return nil
	}
	w := &wholeLiteral{runes: re.Rune}
	for _, r := range re.Rune {
		orbit := []rune{r}
		if re.Flags&syntax.FoldCase != 0 {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				orbit = append(orbit, f)
			}
		}
		w.orbits = append(w.orbits, orbit)
	}
	for _, r := range w.orbits[0] {
		if r < utf8.RuneSelf {
			w.first[r] = true
		} else {
			w.firstWide = true
		}
	}
	return w
}

// matchLine reports whether the literal occurs in line.
func (w *wholeLiteral) matchLine(line []byte) bool {
	for i := 0; i < len(line); {
		c := line[i]
		if c < utf8.RuneSelf {
			if w.first[c] && w.matchAt(line, i) {
				return true
			}
			i++
			continue
		}
		if w.firstWide && w.matchAt(line, i) {
			return true
		}
		_, n := utf8.DecodeRune(line[i:])
		i += n
	}
	return false
}

// matchAt reports whether the literal occurs at offset i of line.
func (w *wholeLiteral) matchAt(line []byte, i int) bool {
	for _, orbit := range w.orbits {
		if i >= len(line) {
			return false
		}
		r, n := rune(line[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRune(line[i:])
		}
		if !inOrbit(orbit, r) {
			return false
		}
		i += n
	}
	return true
}

func inOrbit(orbit []rune, r rune) bool {
	for _, o := range orbit {
		if o == r {
			return true
		}
	}
	return false
}
