package wire

// Root names the root that holds a path (SPEC §3).
type Root string

// The three roots of SPEC §3.
const (
	Workspace Root = "workspace"
	Scratch   Root = "scratch"
	External  Root = "external"
)

// ReadParams are the params of tools/read (SPEC §4). Pointers tell an absent
// member from a zero one.
type ReadParams struct {
	Path   string `json:"path" jsonschema:"file path, relative to the first workspace root or absolute"`
	Offset *int64 `json:"offset,omitempty" jsonschema:"first line to return, 1-based"`
	Limit  *int64 `json:"limit,omitempty" jsonschema:"number of lines to return"`
}

// ReadResult is the result of tools/read (SPEC §4).
type ReadResult struct {
	Path         string  `json:"path"`
	Root         Root    `json:"root"`
	Content      string  `json:"content" jsonschema:"a [path#TAG] header line, then one N:text line per file line"`
	Tag          string  `json:"tag"`
	Offset       int64   `json:"offset"`
	LineCount    int     `json:"lineCount"`
	TotalLines   int64   `json:"totalLines"`
	FileBytes    int64   `json:"fileBytes"`
	Truncated    bool    `json:"truncated"`
	ClippedLines []int64 `json:"clippedLines,omitempty" jsonschema:"line numbers clipped in this window (not editable)"`
	Notice       string  `json:"notice,omitempty"`
	Encoding     string  `json:"encoding,omitempty" jsonschema:"the file's encoding (WHATWG label) when it is not UTF-8 without a BOM (SPEC §4.1); content is shown decoded"`
	Source       string  `json:"source,omitempty" jsonschema:"editor: the text is the editor's unsaved buffer, not the file on disk (SPEC §15)"`
	Version      *int32  `json:"version,omitempty" jsonschema:"the editor's version of the buffer read (source editor)"`
	Unsaved      bool    `json:"unsaved,omitempty" jsonschema:"the buffer has changes not saved to disk (source editor)"`
}

// ReadBinaryData is the data of a TOOL_BINARY_CONTENT error.
type ReadBinaryData struct {
	Path      string `json:"path"`
	FileBytes int64  `json:"fileBytes"`
	Reason    string `json:"reason"`
}
