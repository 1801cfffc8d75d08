package process

import (
	"slices"
	"syscall"
)

// KeyNames lists the named keys Key knows, as a message shows them.
const KeyNames = `Enter Tab Esc Backspace Up Down Left Right Home End PageUp PageDown C-a..C-z C-\`

// keyBytes are the bytes of the named keys a terminal sends.
var keyBytes = map[string]string{
	"Enter": "\r", "Tab": "\t", "Esc": "\x1b", "Backspace": "\x7f",
	"Up": "\x1b[A", "Down": "\x1b[B", "Right": "\x1b[C", "Left": "\x1b[D",
	"Home": "\x1b[H", "End": "\x1b[F", "PageUp": "\x1b[5~", "PageDown": "\x1b[6~", `C-\`: "\x1c",
}

func init() {
	for c := 'a'; c <= 'z'; c++ {
		keyBytes["C-"+string(c)] = string(rune(c - 'a' + 1))
	}
}

// Key is the bytes a terminal sends for the named key (one of KeyNames).
func Key(name string) (string, bool) {
	b, ok := keyBytes[name]
	return b, ok
}

// SignalNames lists the signals SignalNamed knows.
const SignalNames = "INT TERM HUP QUIT KILL TSTP CONT"

// SignalNamed is the signal of a name without its SIG prefix (one of
// SignalNames).
func SignalNamed(name string) (syscall.Signal, bool) {
	sig, ok := signals[name]
	return sig, ok
}

// WaitEvents names the events a Wait may wait for.
var WaitEvents = []string{string(EvExit), string(EvInput), string(EvIdle), string(EvPattern), string(EvPort)}

// WaitEvent is the event named e if a Wait may wait for it (one of
// WaitEvents).
func WaitEvent(e string) (Event, bool) {
	if slices.Contains(WaitEvents, e) {
		return Event(e), true
	}
	return "", false
}
