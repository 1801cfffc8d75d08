package wire

// The model dialects' params and results (SPEC §16). Each dialect tool takes
// the model's call input unchanged as its params and returns what goes
// unchanged into the host's reply to the model.

// ApplyPatchParams is openai/apply_patch's params, one of: Codex's
// {"input": patch text} (its freeform tool's text as a JSON string), a
// Responses API operation ({"type","path","diff"}), or that operation
// wrapped as {"operation": {...}} (the apply_patch_call item).
type ApplyPatchParams struct {
	Input     *string              `json:"input,omitempty" jsonschema:"a whole V4A patch, *** Begin Patch to *** End Patch (Codex)"`
	Operation *ApplyPatchOperation `json:"operation,omitempty" jsonschema:"a Responses API apply_patch_call operation"`
	ApplyPatchOperation
}

// ApplyPatchOperation is a Responses API apply_patch operation.
type ApplyPatchOperation struct {
	Type string `json:"type,omitempty" jsonschema:"create_file, update_file or delete_file"`
	Path string `json:"path,omitempty"`
	Diff string `json:"diff,omitempty" jsonschema:"create_file: the file's lines, each after a +; update_file: V4A chunks (@@ anchors, space/-/+ lines)"`
}

// ApplyPatchResult is openai/apply_patch's result: an
// apply_patch_call_output's status ("completed" or "failed") and output.
type ApplyPatchResult struct {
	Status string `json:"status"`
	Output string `json:"output"`
}

// TextEditorParams is anthropic/str_replace_based_edit_tool's params: the
// tool_use input.
type TextEditorParams struct {
	Command       string  `json:"command" jsonschema:"view, create, str_replace or insert"`
	Path          string  `json:"path"`
	ViewRange     []int   `json:"view_range,omitempty" jsonschema:"view: [start, end] 1-based lines, end -1 = to the end"`
	FileText      *string `json:"file_text,omitempty" jsonschema:"create: the file's text"`
	OldStr        *string `json:"old_str,omitempty" jsonschema:"str_replace: the text to replace, matching exactly once"`
	NewStr        *string `json:"new_str,omitempty" jsonschema:"str_replace: the replacement; insert: accepted for insert_text"`
	InsertLine    *int    `json:"insert_line,omitempty" jsonschema:"insert: the line after which to insert (0 = the top)"`
	InsertText    *string `json:"insert_text,omitempty" jsonschema:"insert: the text to insert"`
	MaxCharacters *int    `json:"max_characters,omitempty" jsonschema:"view: the most characters to return"`
}

// AnthropicBashParams is anthropic/bash's params: the tool_use input.
type AnthropicBashParams struct {
	Command string `json:"command,omitempty"`
	Restart bool   `json:"restart,omitempty" jsonschema:"start a new shell session"`
}

// ToolResult is an Anthropic tool's result: a tool_result block's content
// and is_error.
type ToolResult struct {
	Content string `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
}

// ShellParams is openai/shell's params: a shell_call's action (or the
// shell_call item, whose action it reads).
type ShellParams struct {
	ShellAction
	Action *ShellAction `json:"action,omitempty" jsonschema:"the shell_call's action, when the whole item is sent"`
}

// ShellAction is a shell_call's action.
type ShellAction struct {
	Commands        []string `json:"commands,omitempty" jsonschema:"commands run one after another, each with bash -c"`
	TimeoutMs       *int     `json:"timeout_ms,omitempty" jsonschema:"each command's timeout in milliseconds"`
	MaxOutputLength *int     `json:"max_output_length,omitempty" jsonschema:"the most characters kept of each stream of each command"`
}

// ShellResult is openai/shell's result: a shell_call_output's output, one
// entry per command, and max_output_length echoed.
type ShellResult struct {
	Output          []ShellOutput `json:"output"`
	MaxOutputLength *int          `json:"max_output_length,omitempty"`
}

// ShellOutput is one command's output in a ShellResult.
type ShellOutput struct {
	Stdout  string       `json:"stdout"`
	Stderr  string       `json:"stderr"`
	Outcome ShellOutcome `json:"outcome"`
}

// ShellOutcome is how a command ended: {"type":"exit","exit_code":N} or
// {"type":"timeout"}.
type ShellOutcome struct {
	Type     string `json:"type"`
	ExitCode *int   `json:"exit_code,omitempty"`
}

// GeminiParams is the params of every gemini/* tool: the functionCall's
// args, current and older names alike.
type GeminiParams struct {
	FilePath             string  `json:"file_path,omitempty"`
	AbsolutePath         string  `json:"absolute_path,omitempty"`
	Path                 string  `json:"path,omitempty"`
	Directory            string  `json:"directory,omitempty"`
	DirPath              string  `json:"dir_path,omitempty"`
	Content              *string `json:"content,omitempty"`
	OldString            *string `json:"old_string,omitempty"`
	NewString            *string `json:"new_string,omitempty"`
	ExpectedReplacements *int    `json:"expected_replacements,omitempty"`
	Offset               *int    `json:"offset,omitempty"`
	Limit                *int    `json:"limit,omitempty"`
	StartLine            *int    `json:"start_line,omitempty"`
	EndLine              *int    `json:"end_line,omitempty"`
	Command              string  `json:"command,omitempty"`
	Description          string  `json:"description,omitempty"`
	Pattern              string  `json:"pattern,omitempty"`
	Include              string  `json:"include,omitempty"`
	Instruction          string  `json:"instruction,omitempty"`
}

// GeminiResult is a gemini/* tool's result: the functionResponse's
// response, {"output": text} or {"error": text}.
type GeminiResult struct {
	Output string `json:"output,omitempty"`
	Error  string `json:"error,omitempty"`
}

// ExecCommandParams is openai/exec_command's params: Codex's exec_command
// arguments.
type ExecCommandParams struct {
	Cmd             string `json:"cmd"`
	Workdir         string `json:"workdir,omitempty"`
	Tty             bool   `json:"tty,omitempty"`
	YieldTimeMs     *int64 `json:"yield_time_ms,omitempty" jsonschema:"how long to wait for the command before answering (default 10000)"`
	MaxOutputTokens *int   `json:"max_output_tokens,omitempty"`
}

// WriteStdinParams is openai/write_stdin's params: Codex's write_stdin
// arguments.
type WriteStdinParams struct {
	SessionID       int64  `json:"session_id"`
	Chars           string `json:"chars,omitempty" jsonschema:"text written to the process's stdin (empty: only poll)"`
	YieldTimeMs     *int64 `json:"yield_time_ms,omitempty" jsonschema:"how long to wait for output before answering (default 250)"`
	MaxOutputTokens *int   `json:"max_output_tokens,omitempty"`
}

// ExecResult is openai/exec_command's and openai/write_stdin's result: the
// function_call_output's output text.
type ExecResult struct {
	Output string `json:"output"`
}
