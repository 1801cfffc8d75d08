package logging

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestQueueHoldsLinesUntilFlush(t *testing.T) {
	var got []string
	q := NewQueue(func(f string, a ...any) { got = append(got, fmt.Sprintf(f, a...)) }, "engine: ")
	q.Printf("one %d", 1)
	q.Printf("two")
	require.Empty(t, got, "nothing is written before Flush")
	q.Flush()
	require.Equal(t, []string{"engine: one 1", "engine: two"}, got)
	q.Flush()
	require.Len(t, got, 2, "a flushed line is written once")
}
