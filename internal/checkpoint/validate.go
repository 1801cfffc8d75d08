package checkpoint

import (
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/toolrpc/toolrpc/limits"
)

// TranscriptError reports a transcript compaction refuses, naming the message.
type TranscriptError struct {
	// Index is the index of the offending message in the transcript.
	Index int
	// Reason says what is wrong with it.
	Reason string
}

// Error implements error.
func (e *TranscriptError) Error() string {
	return fmt.Sprintf("messages[%d]: %s", e.Index, e.Reason)
}

func invalid(i int, format string, args ...any) *TranscriptError {
	return &TranscriptError{Index: i, Reason: fmt.Sprintf(format, args...)}
}

var idPattern = regexp.MustCompile(fmt.Sprintf(`^[A-Za-z0-9._-]{1,%d}$`, limits.CheckpointIDMaxChars))

// ValidID reports whether id is an acceptable checkpointId: 1 to 64 of
// A-Z a-z 0-9 . _ -.
func ValidID(id string) bool { return idPattern.MatchString(id) }

// ParseTranscript decodes a JSON array of messages; a message that does not
// decode is reported as a *TranscriptError naming its index.
func ParseTranscript(raw json.RawMessage) ([]Message, error) {
	var msgs []Message
	err := json.Unmarshal(raw, &msgs)
	if err == nil && msgs != nil {
		return msgs, nil
	}
	// Slow path, only to name what is wrong.
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("messages must be an array: %w", err)
	}
	if items == nil {
		return nil, fmt.Errorf("messages must be an array, not null")
	}
	for i, it := range items {
		var m Message
		if err := json.Unmarshal(it, &m); err != nil {
			return nil, invalid(i, "%v", err)
		}
	}
	return nil, fmt.Errorf("messages: %w", err)
}

// Validate checks that msgs is a transcript a provider accepts: known roles;
// toolCalls only on assistant messages, each with a non-empty id and name,
// ids unique in the transcript; every tool message answers, by toolCallId, a
// call of the assistant message its run of tool messages follows; every call
// is answered exactly once. The error is a *TranscriptError.
func Validate(msgs []Message) error {
	callAt := map[string]int{}   // call id -> index of its assistant message
	answered := map[string]int{} // call id -> index of its result
	open := -1                   // assistant message whose results may follow
	closeOpen := func() error {
		if open < 0 {
			return nil
		}
		for _, c := range msgs[open].ToolCalls {
			if _, ok := answered[c.ID]; !ok {
				return invalid(open, "tool call %q has no result", c.ID)
			}
		}
		open = -1
		return nil
	}
	for i, m := range msgs {
		switch m.Role {
		case RoleUser, RoleAssistant:
			if err := closeOpen(); err != nil {
				return err
			}
			if m.ToolCallID != "" {
				return invalid(i, "a %s message cannot carry toolCallId", m.Role)
			}
			if len(m.ToolCalls) == 0 {
				continue
			}
			if m.Role != RoleAssistant {
				return invalid(i, "only assistant messages carry toolCalls")
			}
			for k, c := range m.ToolCalls {
				if c.ID == "" {
					return invalid(i, "toolCalls[%d] has no id", k)
				}
				if c.Name == "" {
					return invalid(i, "toolCalls[%d] (%q) has no name", k, c.ID)
				}
				if first, dup := callAt[c.ID]; dup {
					return invalid(i, "duplicate tool call id %q (also at messages[%d])", c.ID, first)
				}
				callAt[c.ID] = i
			}
			open = i
		case RoleTool:
			if len(m.ToolCalls) > 0 {
				return invalid(i, "a tool message cannot carry toolCalls")
			}
			if m.ToolCallID == "" {
				return invalid(i, "tool message has no toolCallId")
			}
			if first, dup := answered[m.ToolCallID]; dup {
				return invalid(i, "duplicate result for tool call %q (also at messages[%d])", m.ToolCallID, first)
			}
			at, known := callAt[m.ToolCallID]
			switch {
			case !known:
				return invalid(i, "tool result for call %q, which no assistant message made", m.ToolCallID)
			case at != open:
				return invalid(i, "tool result for call %q of messages[%d] does not follow that message", m.ToolCallID, at)
			}
			answered[m.ToolCallID] = i
		default:
			return invalid(i, "unknown role %q (want user, assistant or tool)", m.Role)
		}
	}
	return closeOpen()
}
