package rpc

import "github.com/toolrpc/toolrpc/wire"

// marshal is wire.Marshal, the one JSON encoding of every output, with the
// HTML escapes of JSON a handler passed on as it is (a json.RawMessage, such
// as a stored checkpoint) undone: a "<" in a grep hit is written as "<", not
// "\u003c". Every frame the server writes is marshalled here.
func marshal(v any) ([]byte, error) {
	b, err := wire.Marshal(v)
	if err != nil {
		return nil, err
	}
	return wire.Unescape(b), nil
}
