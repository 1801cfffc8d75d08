package rpc

import (
	"encoding/json"

	"github.com/toolrpc/toolrpc/wire"
)

// Dynamic hosts (SPEC §1): Lua, for one, encodes an empty table as [], so
// where an object is expected an empty array is taken for {}.

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
		if v, ok := m[k]; ok && wire.IsEmptyArray(v) {
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
