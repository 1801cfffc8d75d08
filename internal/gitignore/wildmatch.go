package gitignore

// Results of one wildmatch step, as in git's wildmatch.c.
const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// Wildmatch reports whether text matches the git wildmatch pattern. With
// pathname set (git's WM_PATHNAME), "*", "?" and classes never match "/",
// and "**" matches across directories only as a whole component ("a/**/b",
// "**/b", "a/**"); a "**" glued to other characters is a "*". Without it,
// every wildcard matches "/" too. It is a port of git's dowild.
func Wildmatch(pattern, text string, pathname bool) bool {
	return dowild(pattern, 0, text, 0, pathname) == wmMatch
}

// at returns s[i], or 0 past the end (C's terminating NUL).
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// globSpecial reports git's is_glob_special: the bytes "*?[\".
func globSpecial(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}

// dowild matches p[pi:] against t[ti:].
func dowild(p string, pi int, t string, ti int, pathname bool) int {
	for ; pi < len(p); ti, pi = ti+1, pi+1 {
		pc := p[pi]
		tc := at(t, ti)
		if tc == 0 && pc != '*' {
			return wmAbortAll
		}
		switch pc {
		case '\\':
			// Literal match with the next byte; a trailing "\" never matches.
			pi++
			if at(p, pi) != tc {
				return wmNoMatch
			}
		case '?':
			if pathname && tc == '/' {
				return wmNoMatch
			}
		case '*':
			r, next, done := star(p, pi, t, ti, pathname)
			if done {
				return r
			}
			// "*/" consumed one directory: resume at the slash.
			pi, ti = next-1, r-1
		case '[':
			r, end := class(p, pi, tc)
			if r != wmMatch {
				return r
			}
			if pathname && tc == '/' {
				return wmNoMatch
			}
			pi = end
		default:
			if tc != pc {
				return wmNoMatch
			}
		}
	}
	if ti < len(t) {
		return wmNoMatch
	}
	return wmMatch
}

// star matches the run of "*" at p[pi]. It either decides (done, result r)
// or, for a single "*" followed by "/" under pathname, skips text to the next
// slash: then r is that slash's index plus one and next the pattern's slash
// index plus one, so the caller's loop continues there.
func star(p string, pi int, t string, ti int, pathname bool) (r, next int, done bool) {
	matchSlash := !pathname
	pi++
	if at(p, pi) == '*' {
		prev := pi - 2
		for pi++; at(p, pi) == '*'; pi++ {
		}
		if !pathname {
			matchSlash = true
		} else if (prev < 0 || p[prev] == '/') &&
			(pi == len(p) || p[pi] == '/' || (p[pi] == '\\' && at(p, pi+1) == '/')) {
			// "**/" may match nothing: try the rest at this point.
			if at(p, pi) == '/' && dowild(p, pi+1, t, ti, pathname) == wmMatch {
				return wmMatch, 0, true
			}
			matchSlash = true
		} else {
			matchSlash = false
		}
	}
	if pi == len(p) {
		// A trailing "**" matches everything, a trailing "*" only up to a slash.
		if !matchSlash && indexByteFrom(t, ti, '/') >= 0 {
			return wmNoMatch, 0, true
		}
		return wmMatch, 0, true
	}
	if !matchSlash && p[pi] == '/' {
		slash := indexByteFrom(t, ti, '/')
		if slash < 0 {
			return wmNoMatch, 0, true
		}
		return slash + 1, pi + 1, false
	}
	for tc := at(t, ti); tc != 0; {
		// A literal after the star: skip to its next occurrence.
		if !globSpecial(p[pi]) {
			pc := p[pi]
			for tc = at(t, ti); tc != 0 && (matchSlash || tc != '/'); tc = at(t, ti) {
				if tc == pc {
					break
				}
				ti++
			}
			if tc != pc {
				return wmNoMatch, 0, true
			}
		}
		if m := dowild(p, pi, t, ti, pathname); m != wmNoMatch {
			if !matchSlash || m != wmAbortToStarStar {
				return m, 0, true
			}
		} else if !matchSlash && tc == '/' {
			return wmAbortToStarStar, 0, true
		}
		ti++
		tc = at(t, ti)
	}
	return wmAbortAll, 0, true
}

// indexByteFrom is the index of the first c in s[from:], or -1.
func indexByteFrom(s string, from int, c byte) int {
	for i := from; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// class matches the bracket expression at p[pi] ("[") against tc. It
// returns wmMatch when tc is in the class (negation applied) with end the
// index of the closing "]", wmNoMatch when it is not, and wmAbortAll for an
// unterminated or malformed class.
func class(p string, pi int, tc byte) (r, end int) {
	pi++
	pc := at(p, pi)
	if pc == '^' {
		pc = '!'
	}
	negated := pc == '!'
	if negated {
		pi++
		pc = at(p, pi)
	}
	var prev byte
	matched := false
	for {
		if pc == 0 {
			return wmAbortAll, 0
		}
		switch {
		case pc == '\\':
			pi++
			pc = at(p, pi)
			if pc == 0 {
				return wmAbortAll, 0
			}
			if tc == pc {
				matched = true
			}
		case pc == '-' && prev != 0 && at(p, pi+1) != 0 && at(p, pi+1) != ']':
			pi++
			pc = p[pi]
			if pc == '\\' {
				pi++
				pc = at(p, pi)
				if pc == 0 {
					return wmAbortAll, 0
				}
			}
			if tc <= pc && tc >= prev {
				matched = true
			}
			pc = 0 // so prev becomes 0
		case pc == '[' && at(p, pi+1) == ':':
			end, in, r := posixClass(p, pi, tc)
			switch r {
			case wmAbortAll:
				return wmAbortAll, 0
			case wmNoMatch:
				// No ":]": a plain "[" in the set.
				matched = matched || tc == '['
			default:
				matched = matched || in
				pi = end
				pc = 0
			}
		default:
			if tc == pc {
				matched = true
			}
		}
		prev = pc
		pi++
		pc = at(p, pi)
		if pc == ']' {
			break
		}
	}
	if matched == negated {
		return wmNoMatch, 0
	}
	return wmMatch, pi
}

// posixClass reads "[:name:]" at p[pi] inside a bracket expression and
// tests tc against it: r is wmMatch with end at its closing "]" (in: tc is
// in the class), wmNoMatch when no ":]" closes it (the "[" is then a plain
// member), or wmAbortAll for an unterminated set or an unknown name.
func posixClass(p string, pi int, tc byte) (end int, in bool, r int) {
	s := pi + 2
	j := s
	for j < len(p) && p[j] != ']' {
		j++
	}
	if j == len(p) {
		return 0, false, wmAbortAll
	}
	n := j - s - 1
	if n < 0 || p[j-1] != ':' {
		return 0, false, wmNoMatch
	}
	in, ok := namedClass(p[s:s+n], tc)
	if !ok {
		return 0, false, wmAbortAll
	}
	return j, in, wmMatch
}

// namedClass tests c against the POSIX class name (ASCII only, as git's
// sane ctype); ok is false for an unknown name.
func namedClass(name string, c byte) (in, ok bool) {
	lower := c >= 'a' && c <= 'z'
	upper := c >= 'A' && c <= 'Z'
	digit := c >= '0' && c <= '9'
	switch name {
	case "alnum":
		return lower || upper || digit, true
	case "alpha":
		return lower || upper, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return digit, true
	case "graph":
		return c > 0x20 && c < 0x7f, true
	case "lower":
		return lower, true
	case "print":
		return c >= 0x20 && c < 0x7f, true
	case "punct":
		return c > 0x20 && c < 0x7f && !lower && !upper && !digit, true
	case "space":
		return c == ' ' || c == '\t' || c == '\n' || c == '\r', true
	case "upper":
		return upper, true
	case "xdigit":
		return digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'), true
	}
	return false, false
}
