package search

import (
	"context"
	"fmt"
	"strings"

	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/walk"
)

// IgnoredNotice says what the ignore rules excluded during a walk that
// collected ex (SPEC §5): how many files (the walk's filter passes, counted
// within limits.IgnoredCountEntries directory entries), one rule that
// excluded the most as `file:line pattern` (display names the file), and
// that an explicit path reaches them. what names the files ("files",
// "matching files"). It is "" when nothing was excluded.
func IgnoredNotice(ctx context.Context, ex *walk.Excluded, display func(abs string) string, what string) string {
	c := ex.Count(ctx, limits.IgnoredCountEntries)
	if c.Files == 0 || c.Rule == nil {
		return ""
	}
	n := fmt.Sprintf("%d %s", c.Files, what)
	if c.Files == 1 {
		n = "1 " + strings.TrimSuffix(what, "s")
	}
	if c.Capped {
		n = "at least " + n
	}
	return fmt.Sprintf("Ignore rules excluded %s under the searched path (%s:%d %s excluded %d); "+
		"an explicit path reaches ignored files.",
		n, display(c.Rule.Source), c.Rule.Line, c.Rule.Text, c.RuleFiles)
}
