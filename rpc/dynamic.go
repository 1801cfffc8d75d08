package rpc

import (
	"bytes"
	"encoding/json"
)

// Dynamic hosts (SPEC §1): Lua, for one, encodes an empty table as [], so
// where an object is expected an empty array is taken for {}.

// jsonSpace is the whitespace JSON allows between tokens.
const jsonSpace = " \t\r\n"

// isEmptyArray reports whether b is the JSON text [] (JSON whitespace allowed).
func isEmptyArray(b []byte) bool {
	b = bytes.Trim(b, jsonSpace)
	return len(b) >= 2 && b[0] == '[' && b[len(b)-1] == ']' && len(bytes.Trim(b[1:len(b)-1], jsonSpace)) == 0
}

// emptyArraysAsObjects returns params (a JSON object) with each of the
// members named in keys that is [] replaced by {}. Anything else, including
// params that are not an object, is returned as it is.
func emptyArraysAsObjects(params json.RawMessage, keys ...string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) != nil {
		return params
	}
	changed := false
	for _, k := range keys {
		if v, ok := m[k]; ok && isEmptyArray(v) {
			m[k] = json.RawMessage("{}")
			changed = true
		}
	}
	if !changed {
		return params
	}
	b, err := json.Marshal(m)
	if err != nil {
		return params
	}
	return b
}

// StringMap is a JSON object of strings that also accepts an empty array.
type StringMap map[string]string

// UnmarshalJSON decodes an object of strings, or [] as an empty map.
func (m *StringMap) UnmarshalJSON(b []byte) error {
	if isEmptyArray(b) {
		*m = StringMap{}
		return nil
	}
	return json.Unmarshal(b, (*map[string]string)(m))
}
