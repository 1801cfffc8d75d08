package main

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReleaseArchiveRunsREADMEJob builds this platform's release archive
// twice (the bytes must match: the build is reproducible), checks it against
// SHA256SUMS, unpacks it in a temp dir and runs README's main job with the
// unpacked binary on the repository.
func TestReleaseArchiveRunsREADMEJob(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the archive test unpacks a tar.gz and runs it: Linux CI only")
	}
	target := runtime.GOOS + "/" + runtime.GOARCH
	repo, err := filepath.Abs("../..")
	require.NoError(t, err)
	t.Chdir(repo)
	outs := []string{t.TempDir(), t.TempDir()}
	for _, out := range outs {
		require.NoError(t, release("v9.8.7", out, []string{target}))
	}
	sums := make([]string, len(outs))
	for i, out := range outs {
		b, err := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
		require.NoError(t, err)
		sums[i] = string(b)
	}
	require.Equal(t, sums[0], sums[1], "two builds of one commit differ")

	name := "toolrpc_9.8.7_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz"
	archive, err := os.ReadFile(filepath.Join(outs[0], name))
	require.NoError(t, err)
	sum := sha256.Sum256(archive)
	require.Equal(t, hex.EncodeToString(sum[:])+"  "+name+"\n", sums[0])

	dir := t.TempDir()
	unpack(t, filepath.Join(outs[0], name), dir)
	bin := filepath.Join(dir, "toolrpc_9.8.7_"+runtime.GOOS+"_"+runtime.GOARCH, "toolrpc")
	for _, f := range []string{"LICENSE", "README.md"} {
		_, err := os.Stat(filepath.Join(filepath.Dir(bin), f))
		require.NoError(t, err, "archive lacks %s", f)
	}

	out, err := exec.Command(bin, "--version").Output()
	require.NoError(t, err)
	head, _ := exec.Command("git", "rev-parse", "HEAD").Output()
	require.Contains(t, string(out), "toolrpc v9.8.7 (commit "+strings.TrimSpace(string(head)))
	require.Contains(t, string(out), ", "+target+", ")

	// README's first command, with the unpacked binary instead of go run.
	cmd := exec.Command(bin, "call", "tools/grep", `{"pattern":"func Serve","outputMode":"content","context":1}`)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir())
	res, err := cmd.Output()
	require.NoError(t, err)
	var got struct {
		Matches []struct {
			Path string `json:"path"`
			Text string `json:"text"`
		} `json:"matches"`
	}
	require.NoError(t, json.Unmarshal(res, &got), "%s", res)
	found := false
	for _, m := range got.Matches {
		if m.Path == "rpc/server.go" && strings.HasPrefix(m.Text, "func Serve(") {
			found = true
		}
	}
	require.True(t, found, "README's grep did not find rpc/server.go's func Serve: %s", res)
}

func unpack(t *testing.T, archive, dir string) {
	f, err := os.Open(archive)
	require.NoError(t, err)
	defer f.Close()
	gz, err := gzip.NewReader(f)
	require.NoError(t, err)
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return
		}
		require.NoError(t, err)
		p := filepath.Join(dir, filepath.FromSlash(hdr.Name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		w, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, os.FileMode(hdr.Mode))
		require.NoError(t, err)
		_, err = io.Copy(w, tr)
		require.NoError(t, err)
		require.NoError(t, w.Close())
	}
}
