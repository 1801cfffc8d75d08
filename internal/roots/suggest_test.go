package roots

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSimilarity(t *testing.T) {
	tests := []struct {
		want, name string
		wantOK     bool
		wantScore  int
	}{
		{"main.go", "MAIN.GO", true, 0},
		{"mian.go", "main.go", true, 1},
		{"config.yam", "config.yaml", true, 1},
		{"config.yam", "config.json", true, 4},
		{"read", "read_test.go", true, 8},
		{"util.go", "main.go", false, 0},
		{"a", "b", true, 1},
		{"ab", "zz", false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.want+"~"+tc.name, func(t *testing.T) {
			gotScore, gotOK := similarity(tc.want, tc.name)
			require.Equal(t, tc.wantOK, gotOK)
			if tc.wantOK {
				require.Equal(t, tc.wantScore, gotScore)
			}
		})
	}
}
