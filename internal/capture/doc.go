// Package capture retains a bounded part of a command's output stream while
// counting all of it: whatever a command prints, a Head or Tail holds at most
// its byte and line caps, and a Streamer at most one full-fidelity window, yet
// each reports exactly how many bytes and lines it did not keep.
//
// Head keeps a stream's first part (Bash stdout), Tail its last part (Bash
// stderr, a ring). Both retain whole lines only, except when a single line is
// larger than the cap: then they keep that line's edge. Streamer cuts a stream
// into $/progress chunks that never split a UTF-8 character, in full up to a
// byte budget and throttled to the latest output past it; the unsent
// full-fidelity output of all Streamers together is bounded
// (limits.StreamPendingBytes), past which Write paces the command instead of
// buffering.
package capture
