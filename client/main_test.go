package client_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/toolrpc/toolrpc/internal/cli"
)

// serverName is the name under which this test binary runs as the toolrpc
// server: TestMain puts a symlink of that name to itself first on $PATH,
// so exec.Command("toolrpc") starts the real server, race-built under
// -race, with no separate build.
const serverName = "toolrpc"

func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == serverName {
		os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	dir, err := os.MkdirTemp("", "toolrpc-client-test-")
	if err == nil {
		var self string
		if self, err = os.Executable(); err == nil {
			err = os.Symlink(self, filepath.Join(dir, serverName))
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "put the test binary on $PATH as the server:", err)
		os.Exit(2)
	}
	os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		os.RemoveAll(dir)
		os.Exit(code)
	}))
}
