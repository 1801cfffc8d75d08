package shellsession

import (
	"fmt"
	"strings"
)

// The driver is the bash text the server gives a session's shell as its
// script: the bootstrap once, then a few lines a command. The script is a
// regular file the server appends to, not a pipe: bash reads a script it
// cannot seek one byte per read(2), a regular file a buffer at a time, and
// those byte reads were most of a command's cost. Each piece ends with a
// line that blocks the shell on the wake fifo until the server has
// appended the next piece, so the shell never reads the script's end. Each
// command is parsed and run at the top level of a non-interactive bash,
// exactly as a script's line would be: declare makes globals, break and
// return complain as they would there.

// abortSignal is the signal whose trap abandons the running command.
const abortSignal = "USR2"

// scriptPad is the size the bootstrap is padded to: bash sizes its buffer
// for a script from the file's size when it opens it (at most 8 KB), and
// every later piece is read with that buffer.
const scriptPad = 8192

// waitLine ends every piece of the script: it blocks until the server wakes
// the shell for the next piece.
const waitLine = "__toolrpc_wait\n"

// bootstrap is the text that prepares a new shell: it changes to dir,
// makes the wake fifo its stdin and the status fifo its stdout (a command
// runs with its own three, so it sees neither, and no extra fd is closed
// and restored around each command), installs the abort trap and the three
// driver functions, and reports ready with token. pre gives the command
// the previous command's $? (but under set -e, where returning it would
// end the shell); post returns 0 for the same reason, and starts the
// status on a line of its own (a trap may have printed half a line); wait
// reads one wake byte (a signal's trap may interrupt it; end of file, the
// server gone, ends the shell). The builtins are named as builtins: a
// command may define functions called printf or read.
func bootstrap(dir, status, wake, token string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cd -- %s || exit 97\n", quote(dir))
	b.WriteString("unset OLDPWD\n")
	fmt.Fprintf(&b, "exec <%s >%s || exit 98\n", quote(wake), quote(status))
	// A command that runs a function or a sourced file when the abort comes
	// cannot be abandoned by break: the shell ends instead.
	fmt.Fprintf(&b, "trap 'case ${FUNCNAME[0]-} in \"\") break 1000;; __toolrpc_*) ;; *) exit 143;; esac' %s\n", abortSignal)
	b.WriteString("shopt -s expand_aliases\n")
	b.WriteString("__toolrpc_pre() { __toolrpc_c=$1; export TOOLRPC_CALL_COOKIE=$2; __toolrpc_in=$3; __toolrpc_out=$4; __toolrpc_err=$5; [[ $- == *e* ]] || return $__toolrpc_rc; }\n")
	b.WriteString("__toolrpc_post() { __toolrpc_rc=$1; builtin printf '\\n%s %s\\n' \"$2\" \"$1\"; }\n")
	b.WriteString("__toolrpc_wait() { until builtin read -r -n 1 __toolrpc_x; do (($? > 128)) || exit 0; done; }\n")
	fmt.Fprintf(&b, "__toolrpc_rc=0; __toolrpc_post 0 %s\n", quote(token))
	b.WriteString(waitLine)
	if pad := scriptPad - b.Len() - 1; pad > 0 {
		return "#" + strings.Repeat(" ", pad-1) + "\n" + b.String()
	}
	return b.String()
}

// commandText is the three lines that run one command: the first runs it
// at the top level with its stdin, stdout and stderr (and so without the
// wake and status fifos), env assigned for it alone (the redirections sit
// on eval itself, so a DEBUG trap's run for the eval writes to the shell's
// log, not the command's output); the second reports its exit status with
// token (which the command never sees: it is not yet parsed while the
// command runs, and the script file has no name by then); the third waits
// for the next piece.
func commandText(command, cookie, stdin, stdout, stderr string, env []string, token string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "__toolrpc_pre %s %s %s %s %s; for __toolrpc_o in 1; do ", quote(command), quote(cookie), quote(stdin), quote(stdout), quote(stderr))
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&b, "%s=%s ", name, quote(value))
	}
	b.WriteString("eval \"$__toolrpc_c\" <\"$__toolrpc_in\" >\"$__toolrpc_out\" 2>\"$__toolrpc_err\"; done\n")
	fmt.Fprintf(&b, "__toolrpc_post $? %s\n", quote(token))
	b.WriteString(waitLine)
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
