package rpc

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEmptyArraysAsObjects(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"capabilities":[],"initializationOptions":[ ],"rootUri":"file:///x"}`, `{"capabilities":{},"initializationOptions":{},"rootUri":"file:///x"}`},
		{`{"capabilities":[1]}`, `{"capabilities":[1]}`},
		{`{"workspaceFolders":[]}`, `{"workspaceFolders":[]}`},
		{`[]`, `[]`},
		{`{"capabilities":{}}`, `{"capabilities":{}}`},
	}
	for _, tc := range tests {
		require.JSONEq(t, tc.want, string(emptyArraysAsObjects(json.RawMessage(tc.in), "capabilities", "initializationOptions")), tc.in)
	}
}
