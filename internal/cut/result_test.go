package cut

import (
	"github.com/toolrpc/toolrpc/limits"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestResultBudgetBytes(t *testing.T) {
	var b ResultBudget
	require.True(t, b.Take(limits.SearchBudgetBytes-10))
	require.False(t, b.Take(11), "one byte over")
	require.True(t, b.Take(10), "a refused entry charged nothing")
	require.False(t, b.Take(1))
}

func TestResultBudgetLines(t *testing.T) {
	var b ResultBudget
	for i := 0; i < limits.SearchBudgetLines; i++ {
		require.True(t, b.Take(1), "entry %d", i)
	}
	require.False(t, b.Take(0), "entry past the line budget")
}

func TestResultBudgetNotice(t *testing.T) {
	var b ResultBudget
	n := b.Notice("65 lines", "offset=66")
	require.Equal(t, "Stopped at the 128 KB / 4000-line result budget after 65 lines. Next: offset=66.", n)
	require.True(t, strings.HasPrefix(n, "Stopped at the "))
}
