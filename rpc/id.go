package rpc

import (
	"encoding/json"
	"strconv"
	"strings"
)

// idKey returns the key under which a request id (its compact JSON text) is
// registered for cancellation and duplicate detection: ids are compared as
// JSON values (SPEC §1), so the key is one spelling of the value. Strings
// equal once decoded share a key — "é", "\u00e9" and "\u00E9" are one id —
// and so do numerically equal numbers — 7, 7.0, 70e-1 and 0.7e1 are one id,
// as a JavaScript host that parses them would see them — while a string
// never shares a key with a number, so "7" stays apart from 7. A number's
// key is computed from the digits alone, never by building the number, so
// an exponent like 1e999999999 costs nothing.
func idKey(id string) string {
	if id == "" {
		return id
	}
	if id[0] == '"' {
		return stringKey(id)
	}
	if k, ok := numberKey(id); ok {
		return k
	}
	return id
}

// stringKey canonicalises a JSON string: its decoded value, encoded again
// with encoding/json's one spelling. A lone surrogate escape decodes to
// U+FFFD, as encoding/json decodes it everywhere else. Text that is not a
// JSON string keeps itself as its key.
func stringKey(text string) string {
	var v string
	if json.Unmarshal([]byte(text), &v) != nil {
		return text
	}
	b, err := json.Marshal(v)
	if err != nil {
		return text
	}
	return string(b)
}

// maxIDExponent bounds the exponents numberKey canonicalises, so that adding
// a digit count (at most a frame's length) cannot overflow; an id with a
// larger one keeps its text as its key.
const maxIDExponent = 1 << 53

// numberKey canonicalises a JSON number to "[-]0.DIGITSe<exp>" with no
// leading or trailing zero digit (and "0" for any zero), or reports false
// when text is not a JSON number or its exponent is beyond ±maxIDExponent.
func numberKey(text string) (string, bool) {
	s, neg := strings.CutPrefix(text, "-")
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intPart := s[:i]
	if intPart == "" || (len(intPart) > 1 && intPart[0] == '0') {
		return "", false
	}
	s = s[i:]
	frac := ""
	if strings.HasPrefix(s, ".") {
		j := 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j == 1 {
			return "", false
		}
		frac, s = s[1:j], s[j:]
	}
	exp, ok := exponent(s)
	if !ok {
		return "", false
	}
	// The value is 0.DIGITS × 10^pos.
	digits := intPart + frac
	lead := len(digits) - len(strings.TrimLeft(digits, "0"))
	digits = strings.TrimRight(digits[lead:], "0")
	if digits == "" {
		return "0", true
	}
	pos := exp + int64(len(intPart)) - int64(lead)
	sign := ""
	if neg {
		sign = "-"
	}
	return sign + "0." + digits + "e" + strconv.FormatInt(pos, 10), true
}

// exponent parses a JSON number's exponent part ("", "e5", "E+5", "e-5").
func exponent(s string) (int64, bool) {
	if s == "" {
		return 0, true
	}
	if s[0] != 'e' && s[0] != 'E' {
		return 0, false
	}
	e := s[1:]
	digits := strings.TrimPrefix(strings.TrimPrefix(e, "+"), "-")
	if digits == "" || len(e)-len(digits) > 1 {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if !isDigit(digits[i]) {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(strings.TrimPrefix(e, "+"), 10, 64)
	if err != nil || n > maxIDExponent || n < -maxIDExponent {
		return 0, false
	}
	return n, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
