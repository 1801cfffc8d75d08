package rpc

import (
	"bytes"
	"encoding/json"
)

// marshal is json.Marshal without HTML escaping: a "<" in a grep hit is
// written as "<", not "\u003c". Every frame the server writes is marshalled
// here.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}
