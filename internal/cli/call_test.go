package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestCall runs `toolrpc call` in-process: a result goes to stdout as
// indented JSON (status 0), an error reply to stderr as JSON (status 1),
// and a bash call's streamed output to stderr.
func TestCall(t *testing.T) {
	root, data := t.TempDir(), lingeringDataDir(t)
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

// lingeringDataDir returns a data dir removed once nothing writes it any
// more: a one-shot call leaves its in-process server running (callOnce sends
// no shutdown), and that server's content index worker may still be writing
// the dir when the test ends, which made t.TempDir's removal fail.
func lingeringDataDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "toolrpc-cli-data-")
	require.NoError(t, err)
	t.Cleanup(func() {
		require.Eventually(t, func() bool { return os.RemoveAll(dir) == nil }, time.Minute, 10*time.Millisecond)
	})
	return dir
}
