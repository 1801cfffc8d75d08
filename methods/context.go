package methods

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toolrpc/toolrpc/internal/checkpoint"
	"github.com/toolrpc/toolrpc/limits"
	"github.com/toolrpc/toolrpc/rpc"
	"github.com/toolrpc/toolrpc/wire"
)

// checkpointIDSchema gives checkpointId the pattern checkpoint.ValidID
// checks.
func checkpointIDSchema(p wire.Props) {
	p["checkpointId"].Pattern = fmt.Sprintf("^[A-Za-z0-9._-]{1,%d}$", limits.CheckpointIDMaxChars)
}

// transcriptSchema is the schema of context/compact's messages: members
// beyond these are kept and echoed, so the objects stay open.
func transcriptSchema() *jsonschema.Schema {
	str := func() *jsonschema.Schema { return &jsonschema.Schema{Type: "string"} }
	call := &jsonschema.Schema{Type: "object", Required: []string{"id", "name"},
		Properties: wire.Props{"id": str(), "name": str()}}
	msg := &jsonschema.Schema{Type: "object", Required: []string{"role"}, Properties: wire.Props{
		"role":       {Enum: []any{"user", "assistant", "tool"}},
		"content":    str(),
		"toolCalls":  {Type: "array", Items: call},
		"toolCallId": str(),
	}}
	return &jsonschema.Schema{Type: "array", Items: msg}
}

// transcriptResult describes a checkpoint's messages: the transcript's
// shape, every member kept.
func transcriptResult(p wire.Props) { p["messages"] = transcriptSchema() }

// compactMethod is context/compact.
func compactMethod() Method {
	return Method{
		Name: "context/compact",
		Describe: func(f Face) string {
			return fmt.Sprintf("Rebuilds a bounded model context from a transcript and persists it as checkpointId. "+
				"The latest user message over %d tokens keeps %d%% head / %d%% tail of its budget around the line %q; "+
				"a batch of tool results answering one assistant message, over %d tokens in total, is cut largest-first until it fits, "+
				"every call keeping exactly one result. budgets.userTokens and budgets.batchTokens may be %d..%d. "+
				"Tokens are ceil(UTF-8 bytes / %d) of each content. The transcript itself is never modified.",
				limits.CheckpointUserTokens, limits.CheckpointHeadPercent, 100-limits.CheckpointHeadPercent, limits.CheckpointMarker,
				limits.CheckpointBatchTokens, limits.CheckpointMinBudgetTokens, limits.CheckpointMaxBudgetTokens, limits.BytesPerToken)
		},
		InputSchema: wire.InputSchema[wire.CompactParams](func(p wire.Props) {
			checkpointIDSchema(p)
			p["messages"] = transcriptSchema()
			b := p["budgets"].Properties
			wire.Default(wire.Range(b["userTokens"], limits.CheckpointMinBudgetTokens, limits.CheckpointMaxBudgetTokens), limits.CheckpointUserTokens)
			wire.Default(wire.Range(b["batchTokens"], limits.CheckpointMinBudgetTokens, limits.CheckpointMaxBudgetTokens), limits.CheckpointBatchTokens)
		}),
		OutputSchema: wire.OutputSchema[wire.CheckpointResult](transcriptResult),
		Call:         contextCompact,
	}
}

// loadMethod is context/load.
func loadMethod() Method {
	return Method{
		Name: "context/load",
		Describe: func(f Face) string {
			return "Returns the checkpoint context/compact saved as checkpointId in this session, byte for byte, also after a restart with the same dataDir and sessionId."
		},
		InputSchema:  wire.InputSchema[wire.LoadParams](checkpointIDSchema),
		OutputSchema: wire.OutputSchema[wire.CheckpointResult](transcriptResult),
		Call:         contextLoad,
	}
}

func contextCompact(ctx context.Context, s *Session, call *rpc.Call) (any, error) {
	var p wire.CompactParams
	if err := call.Decode(&p); err != nil {
		return nil, err
	}
	if !checkpoint.ValidID(p.CheckpointID) {
		return nil, rpc.Errorf(rpc.InvalidArgument, "checkpointId %q must match [A-Za-z0-9._-]{1,%d}", p.CheckpointID, limits.CheckpointIDMaxChars)
	}
	if len(p.Messages) == 0 || string(p.Messages) == "null" {
		return nil, rpc.Errorf(rpc.InvalidArgument, "messages is required")
	}
	b := checkpoint.DefaultBudgets()
	if p.Budgets != nil {
		if p.Budgets.UserTokens != nil {
			b.UserTokens = *p.Budgets.UserTokens
		}
		if p.Budgets.BatchTokens != nil {
			b.BatchTokens = *p.Budgets.BatchTokens
		}
	}
	if err := b.Validate(); err != nil {
		return nil, rpc.Errorf(rpc.InvalidArgument, "%w", err)
	}
	msgs, err := checkpoint.ParseTranscript(p.Messages)
	if err != nil {
		return nil, transcriptError(err)
	}
	out, stats, err := checkpoint.Compact(msgs, b)
	if err != nil {
		return nil, transcriptError(err)
	}
	messages, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("compact %s: %w", p.CheckpointID, err)
	}
	data, err := json.Marshal(wire.CheckpointResult{CheckpointID: p.CheckpointID, Messages: messages, Stats: stats})
	if err != nil {
		return nil, fmt.Errorf("compact %s: %w", p.CheckpointID, err)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("compact %s: cancelled before it was saved: %w", p.CheckpointID, ctx.Err())
	}
	st, err := s.checkpointStore()
	if err != nil {
		return nil, rpc.Errorf(rpc.IOError, "checkpoint store: %w", err)
	}
	if err := st.Save(p.CheckpointID, data); errors.Is(err, checkpoint.ErrExists) {
		return nil, rpc.Errorf(rpc.InvalidArgument,
			"checkpoint %s already exists with different content; checkpoints are never rewritten, use a new checkpointId", p.CheckpointID).
			WithData(wire.CheckpointData{CheckpointID: p.CheckpointID})
	} else if err != nil {
		return nil, err
	}
	return json.RawMessage(data), nil
}

func contextLoad(ctx context.Context, s *Session, call *rpc.Call) (any, error) {
	var p wire.LoadParams
	if err := call.Decode(&p); err != nil {
		return nil, err
	}
	if !checkpoint.ValidID(p.CheckpointID) {
		return nil, rpc.Errorf(rpc.InvalidArgument, "checkpointId %q must match [A-Za-z0-9._-]{1,%d}", p.CheckpointID, limits.CheckpointIDMaxChars)
	}
	st, err := s.checkpointStore()
	if err != nil {
		return nil, rpc.Errorf(rpc.IOError, "checkpoint store: %w", err)
	}
	data, err := st.Load(p.CheckpointID)
	if errors.Is(err, checkpoint.ErrNotFound) {
		return nil, rpc.Errorf(rpc.NotFound, "checkpoint %s: no such checkpoint in session %s", p.CheckpointID, s.ID).
			WithData(wire.CheckpointData{CheckpointID: p.CheckpointID})
	}
	if err != nil {
		return nil, err
	}
	return json.RawMessage(data), nil
}

// transcriptError turns a rejected transcript into INVALID_ARGUMENT, with
// data.index naming the offending message when there is one.
func transcriptError(err error) error {
	if errors.Is(err, checkpoint.ErrInvariant) {
		return err // an IO_ERROR: nothing was saved
	}
	var te *checkpoint.TranscriptError
	if errors.As(err, &te) {
		return rpc.Errorf(rpc.InvalidArgument, "%v", te).WithData(wire.TranscriptData{Index: te.Index})
	}
	var re *rpc.Error
	if errors.As(err, &re) {
		return re
	}
	return rpc.Errorf(rpc.InvalidArgument, "%w", err)
}
