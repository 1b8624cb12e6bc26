package history

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/notesoup/notesoup/internal/strictjson"
	"github.com/notesoup/notesoup/shared/tooldef"
)

// Tool names, as the MCP server registers them (Claude prefixes them with
// mcp__notesoup__).
const (
	ToolList = "history_list"
	ToolRead = "history_read"
)

// ToolDef is one tool definition, in the shape every notesoup tool shares
// (shared/tooldef). The MCP server and the plugins are generated from these
// values, so the two never drift.
type ToolDef = tooldef.Def

// sessionArgDoc names no harness: the harnesses are whatever the registry
// holds (built-ins and external plugins), which a fixed list would miss.
const sessionArgDoc = `Which session to read. Omit for the current session. Otherwise a selector: "latest", "<harness>:latest" (harness = a name that "notesoup plugins" lists, as "notesoup history sessions" shows it), "<harness>:<id>", or a unique prefix of a session id with or without the harness. Never a file path. Run "notesoup history sessions" to list sessions.`

// Tools returns the definitions of history_list and history_read.
func Tools() []ToolDef {
	return []ToolDef{ListToolDef(), ReadToolDef()}
}

// ListToolDef is history_list.
func ListToolDef() ToolDef {
	return ToolDef{
		Name: ToolList,
		Description: "List and search this or another session's persisted history (any harness notesoup reads: Claude Code, Pi, Codex or a plugin's), one line per entry: seq address, window, role, time and a snippet. " +
			"`query` is a plain, literal substring matched case-insensitively: no regular expressions, no wildcards, no word logic. " +
			"Entries with no visible text (tool-only or thinking-only rows) are not listed. With no cursor the newest page is returned; " +
			"page with `before` (older) and `after` (newer) using the cursors in the footer, or start from the beginning with `oldest`. Read an entry in full with " + ToolRead + ".",
		InputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"session": map[string]any{"type": "string", "description": sessionArgDoc},
				"query": map[string]any{"type": "string",
					"description": "Plain substring to find, matched literally and case-insensitively (not a regex or glob)."},
				"roles": map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []any{"user", "assistant", "system", "tool"}},
					"description": "Only entries of these roles: user and assistant are the dialogue; tool calls and results have role tool; notices and attachments (reminders, summaries) have role system."},
				"window": map[string]any{"type": "string", "description": `Only entries of this window or segment id, e.g. "claude:<sessionId>:2", or of the window with this ordinal, e.g. "2".`},
				"after":  map[string]any{"type": "integer", "minimum": 0, "description": "Page forwards: entries with seq greater than this cursor (0: from the beginning, like oldest)."},
				"before": map[string]any{"type": "integer", "minimum": 1, "description": "Page backwards: the newest entries with seq less than this cursor."},
				"oldest": map[string]any{"type": "boolean", "description": "Page forwards from the beginning of the session instead of showing the newest page."},
				"limit":  map[string]any{"type": "integer", "minimum": 1, "maximum": MaxListLimit, "description": fmt.Sprintf("Entries per page (default %d).", DefaultListLimit)},
			},
			"additionalProperties": false,
		},
		ReadOnly: true, Idempotent: true,
	}
}

// ReadToolDef is history_read.
func ReadToolDef() ToolDef {
	return ToolDef{
		Name: ToolRead,
		Description: "Read one history address in full: a message, attachment or notice as recorded, or a tool call together with its result (a result's seq shows its call). " +
			"Long text is paged: the footer gives the exact offset to continue from. Says so explicitly when no visible text was recorded.",
		InputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"session": map[string]any{"type": "string", "description": sessionArgDoc},
				"seq":     map[string]any{"type": "integer", "minimum": 1, "description": "The address, as " + ToolList + " shows it (#seq)."},
				"offset":  map[string]any{"type": "integer", "minimum": 0, "description": "Byte offset to continue a long text from, as the previous footer says."},
			},
			"required":             []string{"seq"},
			"additionalProperties": false,
		},
		ReadOnly: true, Idempotent: true,
	}
}

// ListArgs is history_list's full argument object.
type ListArgs struct {
	Session string `json:"session,omitempty"`
	ListQuery
}

// ReadArgs is history_read's full argument object.
type ReadArgs struct {
	Session string `json:"session,omitempty"`
	ReadQuery
}

// ParseListArgs decodes and validates a history_list argument object;
// unknown fields are refused so a misspelt filter is not silently ignored.
func ParseListArgs(raw []byte) (ListArgs, error) {
	var a ListArgs
	if err := strictUnmarshal(raw, &a); err != nil {
		return ListArgs{}, fmt.Errorf(ToolList+": bad arguments: %w", err)
	}
	// An explicit 0 differs from an absent cursor (GivenZero); the strict
	// decode above has checked the names, so presence is by exact key.
	var present map[string]json.RawMessage
	_ = json.Unmarshal(raw, &present)
	_, after := present["after"]
	_, before := present["before"]
	if err := a.GivenZero(after, before); err != nil {
		return ListArgs{}, err
	}
	return a, a.Validate()
}

// ParseReadArgs decodes and validates a history_read argument object.
func ParseReadArgs(raw []byte) (ReadArgs, error) {
	var a ReadArgs
	if err := strictUnmarshal(raw, &a); err != nil {
		return ReadArgs{}, fmt.Errorf(ToolRead+": bad arguments: %w", err)
	}
	return a, a.Validate()
}

// strictUnmarshal decodes an argument object strictly (internal/strictjson):
// field names match exactly, unknown and duplicate fields and lone
// surrogates are refused, each naming the field.
func strictUnmarshal(raw []byte, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = []byte("{}")
	}
	return strictjson.Decode(raw, v)
}
