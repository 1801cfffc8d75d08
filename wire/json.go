package wire

import (
	"bytes"
	"encoding/json"
)

// Marshal is the one JSON encoding of everything the server writes, on both
// faces: encoding/json without HTML escaping, so a "<" in a grep hit is
// written as "<", not "\u003c", as read's content is.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

// htmlEscapes are the escapes encoding/json writes for "<", ">" and "&"
// unless told not to, and their characters.
var htmlEscapes = [...]struct{ esc, char string }{{`\u003c`, "<"}, {`\u003e`, ">"}, {`\u0026`, "&"}}

// Unescape rewrites, in place, the \u003c, \u003e and \u0026 escapes of
// JSON text js as the characters they stand for, so JSON another encoder
// wrote (a stored checkpoint, the MCP SDK's frames) reads as Marshal's.
// Every other escape, and a backslash that is itself escaped, is kept. It
// returns the shortened slice; text without "\u00" costs one search.
func Unescape(js []byte) []byte {
	out, rest := js[:0], js
	for {
		i := bytes.Index(rest, []byte(`\u00`))
		if i < 0 {
			return append(out, rest...) // overlapping, out behind: a memmove
		}
		k := 0 // the backslashes before i: an odd run escapes the one at i
		for k < i && rest[i-1-k] == '\\' {
			k++
		}
		if k%2 == 1 {
			out, rest = append(out, rest[:i+1]...), rest[i+1:]
			continue
		}
		if ch, ok := htmlChar(rest[i:]); ok {
			out, rest = append(append(out, rest[:i]...), ch...), rest[i+6:]
			continue
		}
		out, rest = append(out, rest[:i+2]...), rest[i+2:]
	}
}

// htmlChar is the character of an HTML escape at the start of b.
func htmlChar(b []byte) (string, bool) {
	for _, h := range htmlEscapes {
		if len(b) >= len(h.esc) && bytes.EqualFold(b[:len(h.esc)], []byte(h.esc)) {
			return h.char, true
		}
	}
	return "", false
}
