package methods

// StartSession does for a session NewSession built what initialize does in
// LSP mode before the first call: it adopts the session's scratch dir and
// sweeps the stale ones (SPEC §7). Neither failure stops the session.
func StartSession(s *Session) { startScratch(s) }

// CloseSession does what shutdown does in LSP mode once every call of the
// session has returned: it kills the session's processes and shell sessions, drops the file tables, stops the content index
// workers (a build stays resumable), ends the progress shown of their builds, removes the session's scratch dir
// and retires the sandbox's confined thread.
func CloseSession(s *Session) {
	s.processes.Close()
	if s.shells != nil {
		s.shells.Close()
	}
	s.policy().Close() // after the processes: its thread ends once they are reaped
	s.files.Close()
	s.index.Close()
	s.progress.Close() // after the builds: each shown as ended
	_ = s.Scratch.Remove()
}
