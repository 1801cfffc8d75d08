package methods

// StartSession does for a session NewSession built what initialize does in
// LSP mode before the first call: it runs every tool's start-up work (the
// scratch dir is adopted and stale ones are swept, SPEC §7).
func StartSession(s *Session) error { return startSession(s) }

// CloseSession does what shutdown does in LSP mode once every call of the
// session has returned: it runs every tool's close-down work and removes the
// session's scratch dir.
func CloseSession(s *Session) {
	for _, h := range closeSessionHooks {
		h(s)
	}
	_ = s.Scratch.Remove()
}
