package wire

import (
	"encoding/json"
	"fmt"
)

// GrepParams are the params of tools/grep (SPEC §5).
type GrepParams struct {
	Pattern         *string `json:"pattern" jsonschema:"RE2 regular expression"`
	Path            string  `json:"path,omitempty" jsonschema:"file or directory to search (default: the first workspace root)"`
	Glob            string  `json:"glob,omitempty" jsonschema:"doublestar filter; without / it matches the base name"`
	OutputMode      string  `json:"outputMode,omitempty" jsonschema:"content, filesWithMatches (default) or count"`
	CaseInsensitive bool    `json:"caseInsensitive,omitempty"`
	Multiline       bool    `json:"multiline,omitempty"`
	Before          *int64  `json:"before,omitempty" jsonschema:"context lines before each match (content)"`
	After           *int64  `json:"after,omitempty" jsonschema:"context lines after each match (content)"`
	Context         *int64  `json:"context,omitempty" jsonschema:"context lines before and after each match (content)"`
	HeadLimit       *int64  `json:"headLimit,omitempty" jsonschema:"most entries returned"`
	Offset          *int64  `json:"offset,omitempty" jsonschema:"entries skipped first, for paging"`
}

// GrepOutputModes are the outputMode values tools/grep accepts; the first
// three are the names, the rest spellings hosts send.
var GrepOutputModes = []string{"content", "filesWithMatches", "count", "files_with_matches", "files-with-matches"}

// GrepMatch is one entry of a content result: a matching line, or a context
// line around one.
type GrepMatch struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Text    string `json:"text"`
	Context bool   `json:"context,omitempty" jsonschema:"a context line, not a match"`
}

// GrepContentResult is the result of a content grep.
type GrepContentResult struct {
	Matches   []GrepMatch       `json:"matches"`
	Tags      map[string]string `json:"tags" jsonschema:"path to tag, for tools/edit"`
	Encodings map[string]string `json:"encodings,omitempty" jsonschema:"path to encoding (WHATWG label) of each listed file whose text was decoded (SPEC §4.1); UTF-8 files without a BOM are not listed"`
	Count     int               `json:"count" jsonschema:"match entries returned"`
	Files     int               `json:"files" jsonschema:"distinct files among them"`
	Truncated bool              `json:"truncated"`
	Notice    string            `json:"notice,omitempty"`
}

// GrepFilesResult is the result of a filesWithMatches grep.
type GrepFilesResult struct {
	Files     []string `json:"files"`
	Count     int      `json:"count"`
	Truncated bool     `json:"truncated"`
	Notice    string   `json:"notice,omitempty"`
}

// GrepCountEntry is one file of a count result.
type GrepCountEntry struct {
	Path  string `json:"path"`
	Count int    `json:"count"`
}

// GrepCountResult is the result of a count grep.
type GrepCountResult struct {
	Counts    []GrepCountEntry `json:"counts"`
	Count     int              `json:"count" jsonschema:"sum of the per-file counts"`
	Truncated bool             `json:"truncated"`
	Notice    string           `json:"notice,omitempty"`
}

// GrepResult is the result of tools/grep: exactly one of its members is set,
// by the outputMode, and it encodes as that member alone.
type GrepResult struct {
	Content *GrepContentResult
	Files   *GrepFilesResult
	Counts  *GrepCountResult
}

// MarshalJSON encodes the member that is set.
func (r GrepResult) MarshalJSON() ([]byte, error) {
	switch {
	case r.Content != nil:
		return Marshal(r.Content)
	case r.Files != nil:
		return Marshal(r.Files)
	case r.Counts != nil:
		return Marshal(r.Counts)
	}
	return nil, fmt.Errorf("wire: empty GrepResult")
}

// UnmarshalJSON decodes a result of any mode: "matches" marks content,
// "counts" count, anything else filesWithMatches.
func (r *GrepResult) UnmarshalJSON(b []byte) error {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	*r = GrepResult{}
	if _, ok := keys["matches"]; ok {
		r.Content = &GrepContentResult{}
		return json.Unmarshal(b, r.Content)
	}
	if _, ok := keys["counts"]; ok {
		r.Counts = &GrepCountResult{}
		return json.Unmarshal(b, r.Counts)
	}
	r.Files = &GrepFilesResult{}
	return json.Unmarshal(b, r.Files)
}

// Notice returns the notice of the member that is set.
func (r GrepResult) Notice() string {
	switch {
	case r.Content != nil:
		return r.Content.Notice
	case r.Files != nil:
		return r.Files.Notice
	case r.Counts != nil:
		return r.Counts.Notice
	}
	return ""
}
