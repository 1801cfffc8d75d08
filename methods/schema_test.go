package methods

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestToolsListBothSchemas: every listed tool has an input schema that
// refuses unknown members and an outputSchema with its result and the error
// object (SPEC §1).
func TestToolsListBothSchemas(t *testing.T) {
	for _, tool := range List() {
		var in struct {
			AdditionalProperties *bool `json:"additionalProperties"`
		}
		require.NoError(t, json.Unmarshal(tool.InputSchema, &in), tool.Name)
		require.NotNil(t, in.AdditionalProperties, tool.Name)
		require.False(t, *in.AdditionalProperties, "%s: unknown members are refused, as the decoder refuses them", tool.Name)
		var out struct {
			AnyOf []struct {
				Title string `json:"title"`
			} `json:"anyOf"`
		}
		require.NoError(t, json.Unmarshal(tool.OutputSchema, &out), tool.Name)
		require.Len(t, out.AnyOf, 2, tool.Name)
		require.NotEmpty(t, out.AnyOf[0].Title, "%s: the result is titled with its type's name", tool.Name)
		require.Equal(t, "ErrorObject", out.AnyOf[1].Title, tool.Name)
	}
}
