package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCall runs `toolrpc call` in-process: a result goes to stdout as
// indented JSON (status 0), an error reply to stderr as JSON (status 1),
// and a bash call's streamed output to stderr.
func TestCall(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("needle here\n"), 0o644))
	tests := []struct {
		name           string
		method, params string
		wantCode       int
		wantStdout     string
		wantStderr     string
	}{
		{"result", "tools/grep", `{"pattern":"needle","outputMode":"content"}`, 0, `"text": "needle here"`, ""},
		{"error reply", "tools/read", `{"path":"missing.txt"}`, 1, "", `"code": "NOT_FOUND"`},
		{"progress to stderr", "tools/bash", `{"command":"echo streamed-out"}`, 0, `"exitCode": 0`, "streamed-out\n"},
		{"bad params", "tools/read", `{`, 2, "", "params are not valid JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main([]string{"--root", root, "--data-dir", data, "call", tc.method, tc.params}, nil, &stdout, &stderr)
			require.Equal(t, tc.wantCode, code, "stderr: %s", stderr.String())
			require.Contains(t, stdout.String(), tc.wantStdout)
			require.Contains(t, stderr.String(), tc.wantStderr)
			if tc.wantCode == 0 {
				require.True(t, json.Valid(stdout.Bytes()), stdout.String())
				require.True(t, strings.HasPrefix(stdout.String(), "{\n  "), "indented: %s", stdout.String())
			}
		})
	}
}
