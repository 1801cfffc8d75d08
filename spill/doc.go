// Package spill keeps a session's scratch directory so that no spilled output
// outlives its session: spill files of cut tool output are written there, the
// directory exists only once something was spilled, it is removed at
// shutdown, and the next server sweeps it once no live process holds its lock.
//
// # Layout
//
//	<dataDir>/scratch/<sessionId>/            0700, holds the lock file while the server lives
//	<dataDir>/scratch/<sessionId>/.lock       flock(LOCK_EX) held by the owning server
//	<dataDir>/scratch/<sessionId>/tool-output/<label>-<ms>-<seq>.log   0600, at most SpillMaxBytes
//
// Its API is toolrpc's own: it serves the server and may change between
// minor versions. The stable surfaces are the wire protocol (docs/protocol.md)
// and the packages client, wire and lspframe.
package spill
