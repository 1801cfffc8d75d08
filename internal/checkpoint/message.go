package checkpoint

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// Roles of a provider-neutral transcript.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one transcript message. Members other than role, content,
// toolCalls and toolCallId are kept in Extra and echoed unchanged; an empty
// content is encoded only if the decoded message had a string content, so a
// null or absent content stays so.
type Message struct {
	// Role is "user", "assistant" or "tool".
	Role string
	// Content is the message text; it is what compaction cuts.
	Content string
	// ToolCalls are the calls an assistant message makes.
	ToolCalls []ToolCall
	// ToolCallID names the call a tool message answers.
	ToolCallID string
	// Extra holds every other member of the message's JSON object.
	Extra map[string]json.RawMessage

	hasContent bool // decoded from a string content, even ""
}

// ToolCall is one call of an assistant message. Members other than id and
// name (arguments, type, …) are kept in Extra and echoed unchanged.
type ToolCall struct {
	// ID identifies the call; it is unique within a transcript.
	ID string
	// Name is the tool's name.
	Name string
	// Extra holds every other member of the call's JSON object.
	Extra map[string]json.RawMessage
}

// clone returns a copy of m sharing nothing mutable with it.
func (m Message) clone() Message {
	c := m
	c.Extra = maps.Clone(m.Extra)
	c.ToolCalls = slices.Clone(m.ToolCalls)
	for i := range c.ToolCalls {
		c.ToolCalls[i].Extra = maps.Clone(c.ToolCalls[i].Extra)
	}
	return c
}

// UnmarshalJSON decodes a message object; role, content, toolCallId must be
// strings (content may be null or absent) and toolCalls an array of calls.
func (m *Message) UnmarshalJSON(b []byte) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return err
	}
	if obj == nil {
		return fmt.Errorf("message is null")
	}
	*m = Message{}
	if err := takeString(obj, "role", &m.Role); err != nil {
		return err
	}
	if raw, ok := obj["content"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &m.Content); err != nil {
			return fmt.Errorf("content must be a string: %w", err)
		}
		m.hasContent = true
		delete(obj, "content")
	}
	if err := takeString(obj, "toolCallId", &m.ToolCallID); err != nil {
		return err
	}
	if raw, ok := obj["toolCalls"]; ok {
		if err := json.Unmarshal(raw, &m.ToolCalls); err != nil {
			return fmt.Errorf("toolCalls: %w", err)
		}
		delete(obj, "toolCalls")
	}
	if len(obj) > 0 {
		m.Extra = obj
	}
	return nil
}

// MarshalJSON encodes the message as one object with its members sorted by
// name, so equal messages give equal bytes.
func (m Message) MarshalJSON() ([]byte, error) {
	obj := maps.Clone(m.Extra)
	if obj == nil {
		obj = map[string]json.RawMessage{}
	}
	put := func(k string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("marshal %s: %w", k, err)
		}
		obj[k] = b
		return nil
	}
	if err := put("role", m.Role); err != nil {
		return nil, err
	}
	if m.Content != "" || m.hasContent {
		if err := put("content", m.Content); err != nil {
			return nil, err
		}
	}
	if m.ToolCalls != nil {
		if err := put("toolCalls", m.ToolCalls); err != nil {
			return nil, err
		}
	}
	if m.ToolCallID != "" {
		if err := put("toolCallId", m.ToolCallID); err != nil {
			return nil, err
		}
	}
	return json.Marshal(obj)
}

// UnmarshalJSON decodes a call object; id and name must be strings.
func (c *ToolCall) UnmarshalJSON(b []byte) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return err
	}
	if obj == nil {
		return fmt.Errorf("tool call is null")
	}
	*c = ToolCall{}
	if err := takeString(obj, "id", &c.ID); err != nil {
		return err
	}
	if err := takeString(obj, "name", &c.Name); err != nil {
		return err
	}
	if len(obj) > 0 {
		c.Extra = obj
	}
	return nil
}

// MarshalJSON encodes the call as one object with its members sorted by name.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	obj := maps.Clone(c.Extra)
	if obj == nil {
		obj = map[string]json.RawMessage{}
	}
	for k, v := range map[string]string{"id": c.ID, "name": c.Name} {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("marshal %s: %w", k, err)
		}
		obj[k] = b
	}
	return json.Marshal(obj)
}

// takeString moves the string member k of obj into dst; a missing or null
// member leaves dst empty.
func takeString(obj map[string]json.RawMessage, k string, dst *string) error {
	raw, ok := obj[k]
	if !ok {
		return nil
	}
	delete(obj, k)
	if string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("%s must be a string: %w", k, err)
	}
	return nil
}
