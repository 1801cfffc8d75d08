package rpc

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestErrorfWrapsItsCause(t *testing.T) {
	cause := &fs.PathError{Op: "open", Path: "/x", Err: fs.ErrPermission}
	e := Errorf(PermissionDenied, "read x: %w", cause)
	require.Equal(t, "read x: open /x: permission denied", e.Message)
	require.ErrorIs(t, e, fs.ErrPermission)
	var pe *fs.PathError
	require.ErrorAs(t, e, &pe)
	require.Nil(t, Errorf(InvalidArgument, "no cause %v", cause).Unwrap(), "%v flattens")
}

func TestAsErrorMapsCancellation(t *testing.T) {
	for _, cause := range []error{context.Canceled, context.DeadlineExceeded} {
		e := AsError(fmt.Errorf("grep: %w", cause))
		require.Equal(t, Cancelled, e.Kind)
		require.Equal(t, int64(CodeRequestCancelled), e.Code)
		require.ErrorIs(t, e, cause)
	}
	e := AsError(errors.New("disk on fire"))
	require.Equal(t, IOError, e.Kind)
	require.Equal(t, int64(CodeToolFailure), e.Code)
	kept := Errorf(Timeout, "bash: timed out: %w", context.DeadlineExceeded)
	require.Same(t, kept, AsError(fmt.Errorf("wrapped: %w", kept)), "an *Error in the chain keeps its kind")
}
