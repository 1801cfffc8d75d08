package lineedit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/toolrpc/toolrpc/limits"
)

// op is one element of tools/edit's ops param.
type op struct {
	Op    string    `json:"op"`
	Start *int      `json:"start"`
	End   *int      `json:"end"`
	Lines *[]string `json:"lines"`
}

// Hunk is one op in removal/insertion form: old lines
// oldStart..oldStart+oldCount-1 are removed and lines go where they were
// (an insert after line s is the hunk {s+1, 0, lines}).
type Hunk struct {
	oldStart, oldCount int
	lines              []string
	op                 int // index in the request, for messages
	touchFrom, touchTo int // lines the op touches (touchFrom > touchTo: none)
}

// ParseOps validates the ops of a tools/edit request, except line ranges
// against the file, and returns them as hunks ordered by position. Its error
// says what is wrong with the ops (the caller's INVALID_ARGUMENT).
func ParseOps(raw json.RawMessage) ([]Hunk, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, fmt.Errorf("ops are required")
	}
	if len(raw) > limits.EditMaxBytes {
		return nil, fmt.Errorf("ops are %d bytes, more than the limit of %d bytes (%d KB); split the edit",
			len(raw), limits.EditMaxBytes, limits.EditMaxBytes/limits.KB)
	}
	var ops []op
	// Unknown op fields are refused: an ignored "count" would edit the wrong lines.
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ops); err != nil {
		return nil, fmt.Errorf("bad ops: %w", err)
	}
	if len(ops) == 0 {
		return nil, fmt.Errorf("ops must not be empty")
	}
	if len(ops) > limits.EditMaxOps {
		return nil, fmt.Errorf("%d ops, more than the limit of %d; split the edit", len(ops), limits.EditMaxOps)
	}
	hunks := make([]Hunk, 0, len(ops))
	inserts := map[int]int{}
	for i, o := range ops {
		h, err := parseOp(i, o, inserts)
		if err != nil {
			return nil, err
		}
		hunks = append(hunks, h)
	}
	if err := checkOverlap(hunks); err != nil {
		return nil, err
	}
	sort.Slice(hunks, func(a, b int) bool {
		if hunks[a].oldStart != hunks[b].oldStart {
			return hunks[a].oldStart < hunks[b].oldStart
		}
		return hunks[a].oldCount < hunks[b].oldCount // an insert goes before a replace at its position
	})
	return hunks, nil
}

// parseOp turns ops[i] into a hunk; inserts maps each insert position seen so
// far to its op.
func parseOp(i int, o op, inserts map[int]int) (Hunk, error) {
	if o.Start == nil {
		return Hunk{}, fmt.Errorf("ops[%d]: start is required", i)
	}
	s := *o.Start
	var lines []string
	if o.Lines != nil {
		lines = *o.Lines
	}
	for j, l := range lines {
		if strings.ContainsAny(l, "\r\n") {
			return Hunk{}, fmt.Errorf("ops[%d].lines[%d] holds a line break; give one line per element", i, j)
		}
	}
	h := Hunk{op: i, lines: lines}
	switch o.Op {
	case "replace", "delete":
		e := s
		if o.End != nil {
			e = *o.End
		}
		if s < 1 || e < s {
			return Hunk{}, fmt.Errorf("ops[%d]: %s needs 1 <= start <= end, got start=%d end=%d", i, o.Op, s, e)
		}
		if o.Op == "delete" && len(lines) > 0 {
			return Hunk{}, fmt.Errorf("ops[%d]: delete takes no lines", i)
		}
		if o.Op == "replace" && o.Lines == nil {
			return Hunk{}, fmt.Errorf("ops[%d]: replace needs lines ([] deletes)", i)
		}
		h.oldStart, h.oldCount = s, e-s+1
		h.touchFrom, h.touchTo = s, e
	case "insert":
		switch {
		case s < 0:
			return Hunk{}, fmt.Errorf("ops[%d]: insert needs start >= 0, got %d", i, s)
		case o.End != nil:
			return Hunk{}, fmt.Errorf("ops[%d]: insert takes no end", i)
		case len(lines) == 0:
			return Hunk{}, fmt.Errorf("ops[%d]: insert needs at least one line", i)
		}
		if prev, dup := inserts[s]; dup {
			return Hunk{}, fmt.Errorf("ops[%d] and ops[%d] both insert after line %d; merge them", prev, i, s)
		}
		inserts[s] = i
		h.oldStart, h.oldCount = s+1, 0
		h.touchFrom, h.touchTo = s, s
		if s == 0 {
			h.touchFrom = 1 // touches nothing
		}
	default:
		return Hunk{}, fmt.Errorf("ops[%d]: op %q is not replace, insert or delete", i, o.Op)
	}
	return h, nil
}

// checkOverlap refuses hunks that touch one line twice.
func checkOverlap(hunks []Hunk) error {
	touched := make([]Hunk, 0, len(hunks))
	for _, h := range hunks {
		if h.touchFrom <= h.touchTo {
			touched = append(touched, h)
		}
	}
	sort.Slice(touched, func(a, b int) bool { return touched[a].touchFrom < touched[b].touchFrom })
	for k := 1; k < len(touched); k++ {
		if a, b := touched[k-1], touched[k]; b.touchFrom <= a.touchTo {
			return fmt.Errorf("ops[%d] and ops[%d] overlap at line %d", a.op, b.op, b.touchFrom)
		}
	}
	return nil
}
