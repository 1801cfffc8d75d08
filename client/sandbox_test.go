package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/toolrpc/toolrpc/client"
	"github.com/toolrpc/toolrpc/wire"
)

// TestSandbox_OptionAndUpdate checks SPEC §14 through the client: the
// Sandbox option reaches the server as initializationOptions.sandbox (beside
// the caller's other options, which it keeps), initialize states it, a
// read-only session's write is SANDBOX_DENIED, and SandboxUpdate widens the
// policy from the next call on and returns it as now in force.
func TestSandbox_OptionAndUpdate(t *testing.T) {
	// The workspace is outside /tmp, which every policy makes writable.
	root, err := os.MkdirTemp("/var/tmp", "toolrpc-client-sandbox-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(root) })
	data := t.TempDir()
	c, err := client.Start(exec.Command("toolrpc"), client.Options{Sandbox: &wire.SandboxPolicy{Mode: wire.SandboxReadOnly}})
	require.NoError(t, err)
	t.Cleanup(c.Kill)
	opts := map[string]any{"dataDir": data}
	res, err := c.Initialize(context.Background(), &protocol.InitializeParams{
		ProcessID: int32(os.Getpid()), RootURI: protocol.DocumentURI(uri.File(root)), InitializationOptions: opts,
	})
	require.NoError(t, err)
	require.Equal(t, map[string]any{"dataDir": data}, opts, "the caller's params are not changed")
	st, err := client.SandboxState(res)
	require.NoError(t, err)
	require.Equal(t, wire.SandboxReadOnly, st.Mode)
	require.Equal(t, wire.SandboxReadOnly, st.Requested)
	var init struct {
		ScratchDir string `json:"scratchDir"`
	}
	require.NoError(t, json.Unmarshal(res, &init))
	require.True(t, strings.HasPrefix(init.ScratchDir, data), "dataDir was sent beside sandbox: %s", init.ScratchDir)

	content := "x\n"
	_, err = c.Write(context.Background(), wire.WriteParams{Path: "a.txt", Content: &content})
	var e *client.Error
	require.True(t, errors.As(err, &e), "%v", err)
	require.Equal(t, wire.SandboxDenied, e.Kind)

	st, err = c.SandboxUpdate(context.Background(), wire.SandboxPolicy{Mode: wire.SandboxWorkspaceWrite})
	require.NoError(t, err)
	require.Equal(t, wire.SandboxWorkspaceWrite, st.Requested)
	_, err = c.Write(context.Background(), wire.WriteParams{Path: "a.txt", Content: &content})
	require.NoError(t, err)

	_, err = c.SandboxUpdate(context.Background(), wire.SandboxPolicy{Mode: "yolo"})
	require.True(t, errors.As(err, &e), "%v", err)
	require.Equal(t, wire.InvalidArgument, e.Kind)
}

// TestSandbox_OptionNeedsObjectOptions checks SPEC §14's option in the
// client: initializationOptions that are not an object cannot carry the
// sandbox, and Initialize says so instead of dropping it.
func TestSandbox_OptionNeedsObjectOptions(t *testing.T) {
	c, err := client.Start(exec.Command("toolrpc"), client.Options{Sandbox: &wire.SandboxPolicy{Mode: wire.SandboxOff}})
	require.NoError(t, err)
	t.Cleanup(c.Kill)
	_, err = c.Initialize(context.Background(), &protocol.InitializeParams{InitializationOptions: []int{1}})
	require.ErrorContains(t, err, "cannot hold sandbox")
}
