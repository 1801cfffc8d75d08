package cli

import (
	"os"
	"strconv"
)

// raiseShellLevel sets SHLVL to 1 when it is unset or below, so the bash
// that tools/bash runs is not a top-level shell. Started over ssh
// (`ssh host toolrpc`), the login shell's exec leaves SHLVL=0 and SSH_CLIENT
// set; Debian's bash then sources ~/.bashrc in every non-interactive
// `bash -c` at level 1, so each call would run the user's bashrc (and
// whatever it prints or waits for) remotely but not locally. The environment
// that bashrc exports is already inherited from the login shell that
// started the server.
func raiseShellLevel() {
	if n, err := strconv.Atoi(os.Getenv("SHLVL")); err != nil || n < 1 {
		os.Setenv("SHLVL", "1")
	}
}
