package mcpserve

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	buildprogress "github.com/toolrpc/toolrpc/internal/progress"
)

// buildLogger is the name in the logger member of the build messages.
const buildLogger = "toolrpc"

// buildLog is the progress.Sink of the MCP face: a notifications/message
// (level info) when a file table walk or a content index build begins and
// when it ends, and nothing between (SPEC §12). The go-sdk sends a log
// message only to a client that has set a log level (logging/setLevel, or
// the request's _meta under MCP 2026-07-28) at info or below; a client
// that never asked for logs gets none, as it asked.
type buildLog struct{ ss *mcp.ServerSession }

// buildMessage is the data of a build message: the LSP work-done progress
// words, so both faces say the same thing.
type buildMessage struct {
	Kind    string `json:"kind"` // "begin" or "end"
	Title   string `json:"title"`
	Message string `json:"message"`
}

// Begin logs the start of a build.
func (b buildLog) Begin(ctx context.Context, s buildprogress.Status) buildprogress.Task {
	b.log(ctx, "begin", s)
	return buildTask{b}
}

func (b buildLog) log(ctx context.Context, kind string, s buildprogress.Status) {
	_ = b.ss.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: buildLogger,
		Data: buildMessage{Kind: kind, Title: s.Title, Message: s.Message}})
}

// buildTask is one build after its begin: reports are not sent, the end is.
type buildTask struct{ b buildLog }

// Report sends nothing: MCP hosts hear of a build at its begin and end.
func (buildTask) Report(buildprogress.Status) {}

// End logs the end of the build.
func (t buildTask) End(s buildprogress.Status) { t.b.log(context.Background(), "end", s) }
