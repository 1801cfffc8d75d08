package search

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolrpc/toolrpc/limits"
)

func TestCheckGlob(t *testing.T) {
	atLimit := strings.Repeat("{a,*}", limits.GlobMaxBraceGroups) + "c"
	tests := []struct {
		name    string
		pattern string
		wantErr bool
	}{
		{"no groups", "**/*.go", false},
		{"at the limit", atLimit, false},
		{"one over", "{x,y}" + atLimit, true},
		{"escaped braces are literal", strings.Repeat(`\{`, 20) + "x", false},
		{"invalid pattern", "[", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckGlob(tc.pattern)
			if !tc.wantErr {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
		})
	}
}
