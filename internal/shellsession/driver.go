package shellsession

import (
	"fmt"
	"strings"
)

// The driver is the bash text the server sends a session's shell on its
// control fifo: the bootstrap once, then two lines a command. The shell reads
// that fifo as its script, so each command is parsed and run at the top
// level of a non-interactive bash, exactly as a script's line would be:
// declare makes globals, break and return complain as they would there.

// abortSignal is the signal whose trap abandons the running command.
const abortSignal = "USR2"

// bootstrap is the text that prepares a new shell: it changes to dir, opens
// the status fifo at statusFD, installs the abort trap and the two driver
// functions, and reports ready with token. pre gives the command the
// previous command's $? (but under set -e, where returning it would end
// the shell); post returns 0 for the same reason.
func bootstrap(dir, status, token string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cd -- %s || exit 97\n", quote(dir))
	b.WriteString("unset OLDPWD\n")
	fmt.Fprintf(&b, "exec %d>%s || exit 98\n", statusFD, quote(status))
	// A command that runs a function or a sourced file when the abort comes
	// cannot be abandoned by break: the shell ends instead.
	fmt.Fprintf(&b, "trap 'case ${FUNCNAME[0]-} in \"\") break 1000;; __toolrpc_*) ;; *) exit 143;; esac' %s\n", abortSignal)
	b.WriteString("shopt -s expand_aliases\n")
	b.WriteString("__toolrpc_pre() { __toolrpc_c=$1; export TOOLRPC_CALL_COOKIE=$2; __toolrpc_in=$3; __toolrpc_out=$4; __toolrpc_err=$5; [[ $- == *e* ]] || return $__toolrpc_rc; }\n")
	fmt.Fprintf(&b, "__toolrpc_post() { __toolrpc_rc=$1; printf '%%s %%s\\n' \"$2\" \"$1\" >&%d; }\n", statusFD)
	fmt.Fprintf(&b, "__toolrpc_rc=0; __toolrpc_post 0 %s\n", quote(token))
	return b.String()
}

// statusFD is the shell's fd of the status fifo; commands run with it closed.
const statusFD = 253

// commandText is the two lines that run one command: the first runs it at
// the top level with its stdin, stdout and stderr and the status fd closed,
// env assigned for it alone (the redirections sit on eval itself, so a
// DEBUG trap's run for the eval writes to the shell's log, not the
// command's output); the second reports its exit status with token
// (which the command never sees: it is not yet parsed while the command
// runs).
func commandText(command, cookie, stdin, stdout, stderr string, env []string, token string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "__toolrpc_pre %s %s %s %s %s; for __toolrpc_o in 1; do ", quote(command), quote(cookie), quote(stdin), quote(stdout), quote(stderr))
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&b, "%s=%s ", name, quote(value))
	}
	fmt.Fprintf(&b, "eval \"$__toolrpc_c\" <\"$__toolrpc_in\" >\"$__toolrpc_out\" 2>\"$__toolrpc_err\" %d>&-; done\n", statusFD)
	fmt.Fprintf(&b, "__toolrpc_post $? %s\n", quote(token))
	return b.String()
}

// quote returns s as one bash word: $'…' with backslash, quote and every
// control byte escaped, so the word stays on one line whatever s holds.
// Bytes from 0x80 up pass unchanged.
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 3)
	b.WriteString("$'")
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' || c == '\'':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "\\x%02x", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// validName reports whether name can be assigned in bash (an env param of a
// session's command is assigned, not passed in the environment).
func validName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}
