package wire

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"
)

// decodes reports whether the server's decoder (unknown fields refused)
// takes params as a T.
func decodes[T any](params string) bool {
	var v T
	dec := json.NewDecoder(bytes.NewReader([]byte(params)))
	dec.DisallowUnknownFields()
	return dec.Decode(&v) == nil
}

func fits(t *testing.T, schema json.RawMessage, params string) bool {
	var s jsonschema.Schema
	require.NoError(t, json.Unmarshal(schema, &s))
	rs, err := s.Resolve(nil)
	require.NoError(t, err)
	var v any
	require.NoError(t, json.Unmarshal([]byte(params), &v))
	return rs.Validate(v) == nil
}

// TestInputSchemaAgreesWithDecoder: for members the type alone decides
// (unknown, wrongly typed, null), the generated schema and the decoder give
// the same verdict. Required members the decoder checks after decoding
// (an absent path decodes as "") are left to the tools' own tests.
func TestInputSchemaAgreesWithDecoder(t *testing.T) {
	cases := []struct {
		name   string
		schema json.RawMessage
		decode func(string) bool
		params []string
	}{
		{"read", InputSchema[ReadParams](nil), decodes[ReadParams], []string{
			`{"path":"a"}`, `{"path":"a","offset":2,"limit":3}`, `{"path":"a","offset":null}`,
			`{"path":"a","bogus":1}`, `{"path":1}`, `{"path":"a","limit":"3"}`}},
		{"grep", InputSchema[GrepParams](nil), decodes[GrepParams], []string{
			`{"pattern":"x","caseInsensitive":true}`, `{"pattern":"x","context":null}`, `{"pattern":"x","headLimit":1.5}`,
			`{"pattern":"x","unknown":true}`, `{"pattern":["x"]}`}},
		{"bash", InputSchema[BashParams](nil), decodes[BashParams], []string{
			`{"command":"ls","env":{"A":"b"},"timeout":1.5}`, `{"command":"ls","env":{"A":1}}`, `{"command":"ls","cmd":"x"}`}},
		{"write", InputSchema[WriteParams](nil), decodes[WriteParams], []string{
			`{"path":"a","content":""}`, `{"path":"a","content":"x","mode":"0644"}`}},
		{"glob", InputSchema[GlobParams](nil), decodes[GlobParams], []string{
			`{"pattern":"*"}`, `{"pattern":"*","limit":null}`, `{"pattern":"*","hidden":true}`}},
	}
	for _, tc := range cases {
		for _, p := range tc.params {
			require.Equal(t, tc.decode(p), fits(t, tc.schema, p), "%s %s: schema and decoder disagree", tc.name, p)
		}
	}
}

// TestOutputSchemaFitsEveryGrepMode: each grep variant encodes to what the
// outputSchema admits, and decodes back to the same variant.
func TestOutputSchemaFitsEveryGrepMode(t *testing.T) {
	schema := OutputSchema[GrepResult](nil)
	for _, r := range []GrepResult{
		{Content: &GrepContentResult{Matches: []GrepMatch{{Path: "a", Line: 1, Text: "x"}}, Tags: map[string]string{"a": "0000"}, Count: 1, Files: 1}},
		{Files: &GrepFilesResult{Files: []string{"a"}, Count: 1}},
		{Counts: &GrepCountResult{Counts: []GrepCountEntry{{Path: "a", Count: 2}}, Count: 2}},
	} {
		b, err := json.Marshal(r)
		require.NoError(t, err)
		require.True(t, fits(t, schema, string(b)), "%s", b)
		var back GrepResult
		require.NoError(t, json.Unmarshal(b, &back))
		require.Equal(t, r, back)
	}
	require.False(t, fits(t, schema, `{"files":["a"],"count":1,"truncated":false,"matches":[]}`), "a mix of variants fits none")
	_, err := json.Marshal(GrepResult{})
	require.Error(t, err, "an empty GrepResult has no shape")
}
