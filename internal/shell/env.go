package shell

import (
	"fmt"
	"sort"
	"strings"
)

// policy is what every command's environment ends with (SPEC §6): pagers
// that do not wait for a terminal, and git that never prompts.
var policy = []string{"PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0"}

// Environ returns the variables a command gets on top of the server's
// environment: env ("NAME=value" pairs), then the SPEC §6 policy
// (PAGER=cat GIT_PAGER=cat GIT_TERMINAL_PROMPT=0), which wins over env.
func Environ(env []string) []string {
	out := make([]string, 0, len(env)+len(policy))
	out = append(out, env...)
	return append(out, policy...)
}

// Env validates a caller's variables and returns them as "NAME=value" pairs
// sorted by name. A name must be non-empty and hold neither '=' nor NUL; a
// value must not hold NUL. The error names the first bad variable.
func Env(env map[string]string) ([]string, error) {
	keys := make([]string, 0, len(env))
	for k, v := range env {
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(v, 0) {
			return nil, fmt.Errorf("env %q: names must be non-empty without '=' or NUL, values without NUL", k)
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, k+"="+env[k])
	}
	return out, nil
}
