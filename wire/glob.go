package wire

// GlobParams are the params of tools/glob (SPEC §5).
type GlobParams struct {
	Pattern string `json:"pattern" jsonschema:"doublestar pattern relative to path"`
	Path    string `json:"path,omitempty" jsonschema:"directory to list (default: the first workspace root)"`
	Limit   *int64 `json:"limit,omitempty" jsonschema:"most paths returned"`
	Offset  *int64 `json:"offset,omitempty" jsonschema:"paths skipped first, for paging"`
}

// GlobResult is the result of tools/glob (SPEC §5).
type GlobResult struct {
	Matches   []string `json:"matches"`
	Count     int      `json:"count"`
	Truncated bool     `json:"truncated"`
	Notice    string   `json:"notice,omitempty"`
}
