package wire

import "encoding/json"

// EditParams are the params of tools/edit (SPEC §8). Ops is the JSON of an
// array of EditOp, kept raw so its size is checked before it is decoded.
type EditParams struct {
	Path string          `json:"path"`
	Tag  string          `json:"tag" jsonschema:"the 4-hex tag a Read or Grep result gave"`
	Ops  json.RawMessage `json:"ops"`
}

// EditOp is one op of tools/edit: replace swaps lines Start..End for Lines,
// delete removes Start..End, insert puts Lines after line Start.
type EditOp struct {
	Op    string   `json:"op"`
	Start int      `json:"start"`
	End   *int     `json:"end,omitempty"`
	Lines []string `json:"lines,omitempty"`
}

// EditResult is the result of tools/edit (SPEC §8).
type EditResult struct {
	Path         string `json:"path"`
	Tag          string `json:"tag"`
	Content      string `json:"content" jsonschema:"each changed region with context lines, in Read's format"`
	TotalLines   int    `json:"totalLines"`
	ClippedLines []int  `json:"clippedLines,omitempty"`
	Notice       string `json:"notice,omitempty"`
}

// WriteParams are the params of tools/write (SPEC §8).
type WriteParams struct {
	Path     string  `json:"path"`
	Content  *string `json:"content"`
	Encoding string  `json:"encoding,omitempty" jsonschema:"the file's encoding (a WHATWG label as read reports it, or utf-8-bom); default: the existing file's, else utf-8"`
}

// WriteResult is the result of tools/write (SPEC §8).
type WriteResult struct {
	Path       string `json:"path"`
	Root       Root   `json:"root"`
	Tag        string `json:"tag"`
	FileBytes  int    `json:"fileBytes"`
	TotalLines int    `json:"totalLines"`
	Created    bool   `json:"created"`
	Notice     string `json:"notice,omitempty"`
	Encoding   string `json:"encoding,omitempty" jsonschema:"the file's encoding (WHATWG label) when it is not UTF-8 without a BOM (SPEC §4.1)"`
}
