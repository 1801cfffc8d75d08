package wire

import (
	"bytes"
	"encoding/json"
)

// Dynamic hosts (SPEC §1): Lua, for one, encodes an empty table as [], so
// where an object is expected an empty array is taken for {}.

// jsonSpace is the whitespace JSON allows between tokens.
const jsonSpace = " \t\r\n"

// IsEmptyArray reports whether b is the JSON text [] (JSON whitespace allowed).
func IsEmptyArray(b []byte) bool {
	b = bytes.Trim(b, jsonSpace)
	return len(b) >= 2 && b[0] == '[' && b[len(b)-1] == ']' && len(bytes.Trim(b[1:len(b)-1], jsonSpace)) == 0
}

// StringMap is a JSON object of strings that also accepts an empty array.
type StringMap map[string]string

// UnmarshalJSON decodes an object of strings, or [] as an empty map.
func (m *StringMap) UnmarshalJSON(b []byte) error {
	if IsEmptyArray(b) {
		*m = StringMap{}
		return nil
	}
	return json.Unmarshal(b, (*map[string]string)(m))
}
