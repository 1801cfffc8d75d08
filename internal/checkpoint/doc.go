// Package checkpoint rebuilds a bounded model context from a transcript
// without ever modifying the transcript, and persists it so that a restarted
// server returns the same bytes.
//
// # Compaction
//
// Compact validates the transcript first (every tool call answered exactly
// once by a tool message that follows its assistant message, no duplicate
// ids, known roles) and then cuts at most two kinds of content:
//
//   - the latest user message, when its token estimate passes the user
//     budget;
//   - every batch of tool results (the tool messages answering one assistant
//     message's toolCalls) whose total passes the batch budget. The largest
//     results are cut first (water-filling: c is the largest cap with
//     Σ min(tokens, c) ≤ budget; every result above c is cut to c tokens, and
//     the leftover tokens go one each to the first of them in transcript
//     order) until the batch fits. A batch that cannot fit even with every
//     cut result reduced to the marker line is refused.
//
// A cut message keeps a head and a tail of its content joined by
// limits.CheckpointMarkerLine. For a byte budget B (tokens × 4), the payload
// is P = B − len(CheckpointMarkerLine); the head is the longest prefix of at
// most ⌊P × 75 / 100⌋ bytes and the tail the longest suffix of at most the
// remaining bytes, both cut at character boundaries. The marker counts
// against B, so a cut message's estimate never passes its budget. Every
// other message is echoed unchanged, unknown members included. The output
// is re-validated and re-estimated before it is returned.
//
// Tokens are limits.EstimateTokens of a message's content.
//
// # Persistence
//
// Store writes a checkpoint once, atomically (temp file in the same
// directory, fsync, rename without replace, directory fsync), at
// <dataDir>/checkpoints/<sessionId>/<checkpointId>.json. A checkpoint is
// never rewritten: saving the same id again succeeds only when the bytes are
// identical (an idempotent retry) and fails with ErrExists otherwise.
package checkpoint
