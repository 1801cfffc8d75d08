package cut

import (
	"fmt"

	"github.com/toolrpc/toolrpc/limits"
)

// JSONStringOverheadBytes is what a string costs in a JSON array beyond its
// bytes: two quotes and a comma.
const JSONStringOverheadBytes = 3

// ResultBudget is BUDGET_SEARCH as one Read, Grep, Glob or Edit result spends
// it: at most limits.SearchBudgetBytes bytes in at most limits.SearchBudgetLines entries.
// Every such result charges its entries here, and says it stopped with
// Notice. The zero value is a full budget.
type ResultBudget struct {
	bytes, lines int
}

// Take charges one entry (a line of content, a path, a match) costing n
// bytes, or reports that it does not fit, charging nothing.
func (b *ResultBudget) Take(n int) bool {
	if b.bytes+n > limits.SearchBudgetBytes || b.lines+1 > limits.SearchBudgetLines {
		return false
	}
	b.bytes += n
	b.lines++
	return true
}

// TakeHeader charges n bytes that are not an entry (a result's header), or
// reports that they do not fit, charging nothing.
func (b *ResultBudget) TakeHeader(n int) bool {
	if b.bytes+n > limits.SearchBudgetBytes {
		return false
	}
	b.bytes += n
	return true
}

// Notice is the one sentence a result stopped by the budget says: after
// names what was kept ("65 lines", "12 of 40 files") and next how to get the
// rest ("offset=66").
func (b *ResultBudget) Notice(after, next string) string {
	return fmt.Sprintf("Stopped at the %d KB / %d-line result budget after %s. Next: %s.",
		limits.SearchBudgetBytes/limits.KB, limits.SearchBudgetLines, after, next)
}
