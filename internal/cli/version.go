package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// version and commit are stamped by scripts/release with
// -ldflags "-X github.com/toolrpc/toolrpc/internal/cli.version=… -X …cli.commit=…".
// Unstamped, version comes from the module (go install …@v1.2.3) and commit
// from the VCS stamp of a build in a checkout.
var (
	version = "0.1.0-dev"
	commit  = ""
)

func init() {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return
	}
	if version == "0.1.0-dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		version = bi.Main.Version
	}
	if commit != "" {
		return
	}
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if commit != "" && modified {
		commit += "-dirty"
	}
}

// versionLine is what --version prints: version, commit and platform.
func versionLine() string {
	c := commit
	if c == "" {
		c = "unknown"
	}
	return fmt.Sprintf("toolrpc %s (commit %s, %s/%s, %s)", version, c, runtime.GOOS, runtime.GOARCH, runtime.Version())
}
