//go:build unix

package shellsession

import (
	"os/exec"
	"strings"
	"testing"
)

// FuzzQuote checks that quote gives bash one word on one line that expands
// to exactly the input, whatever bytes it holds (but NUL, which a command
// never holds): bash itself is the oracle.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "plain", "it's", `back\slash`, "line\nbreak\r\ttab", "$HOME `x` $(y) \"q\"", "\x01\x7f\xff", "é ü 日本", "\\x41", "'\\''"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsRune(s, 0) {
			return
		}
		q := quote(s)
		if strings.ContainsAny(q, "\n\r") {
			t.Fatalf("quote(%q) = %q spans lines", s, q)
		}
		out, err := exec.Command("bash", "--norc", "--noprofile", "-c", "printf %s "+q).Output()
		if err != nil {
			t.Fatalf("bash: %v", err)
		}
		if string(out) != s {
			t.Fatalf("quote(%q) = %s expands to %q", s, q, out)
		}
	})
}

// FuzzStatusOf checks that a status line counts only with the command's
// token and a whole exit status.
func FuzzStatusOf(f *testing.F) {
	f.Add("tok 0", "tok")
	f.Add("tok 137", "tok")
	f.Add("other 0", "tok")
	f.Add("tok x", "tok")
	f.Add("tok", "tok")
	f.Fuzz(func(t *testing.T, line, token string) {
		e, ok := statusOf(line, token)
		if !ok {
			return
		}
		tok, rc, _ := strings.Cut(line, " ")
		if tok != token || rc == "" {
			t.Fatalf("statusOf(%q, %q) accepted", line, token)
		}
		if e.exited || e.aborted {
			t.Fatalf("statusOf(%q) = %+v", line, e)
		}
	})
}

// FuzzIsStatus checks the shape readStatus lets through as a status: a
// token as newToken makes it, a space and a whole number, which statusOf
// then accepts with that token; every real status line passes.
func FuzzIsStatus(f *testing.F) {
	for _, s := range []string{newToken() + " 0", newToken() + " 137", "dbg", "", " 0", "0123456789abcdef0123456789abcdef x", "0123456789ABCDEF0123456789ABCDEF 0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		tok, rc, _ := strings.Cut(line, " ")
		if !isStatus(line) {
			if len(tok) == 32 && rc == "0" && strings.Trim(tok, "0123456789abcdef") == "" {
				t.Fatalf("isStatus(%q) refused a status line", line)
			}
			return
		}
		if len(tok) != 32 || strings.Trim(tok, "0123456789abcdef") != "" {
			t.Fatalf("isStatus(%q) accepted token %q", line, tok)
		}
		if _, ok := statusOf(line, tok); !ok {
			t.Fatalf("isStatus(%q) accepted what statusOf refuses", line)
		}
	})
}
