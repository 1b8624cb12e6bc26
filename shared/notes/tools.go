package notes

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/notesoup/notesoup/shared/tooldef"
)

// Tool names: the five notes_* tools every harness exposes (Claude Code adds
// its own "mcp__notesoup__" prefix).
const (
	ToolList   = "notes_list"
	ToolRead   = "notes_read"
	ToolWrite  = "notes_write"
	ToolEdit   = "notes_edit"
	ToolDelete = "notes_delete"
)

// ToolDef is one notes tool as every harness declares it (the shared
// shape of shared/tooldef). The MCP server and the plugins are generated
// from Tools(), so the wording and schema cannot drift between harnesses.
type ToolDef = tooldef.Def

// nameProp is the schema of the "name" argument all tools but list share.
func nameProp() map[string]any {
	return map[string]any{
		"type":        "string",
		"description": "Note name: api/auth.md is in this project, ~/style.md is global (all projects). Ends in .md.",
	}
}

// object builds a closed object schema.
var object = tooldef.Object

// Tools returns the five notes tool definitions in a fixed order. Each call
// returns fresh values, so callers may modify them.
func Tools() []ToolDef {
	return []ToolDef{
		{
			Name:        ToolList,
			Description: "List your notes: name, size, last change, first line. Use to find a note before reading or writing one.",
			InputSchema: object([]string{}, map[string]any{
				"prefix": map[string]any{"type": "string", "description": "Only names starting with this, e.g. api/ or ~/ (global notes)."},
			}),
			ReadOnly: true, Idempotent: true,
		},
		{
			Name:        ToolRead,
			Description: "Read a note with line numbers before editing it. Answers hold at most " + strconv.Itoa(MaxReadAnswerBytes>>10) + " KiB; a longer one ends with the offset to continue from.",
			InputSchema: object([]string{"name"}, map[string]any{
				"name":   nameProp(),
				"from":   map[string]any{"type": "integer", "minimum": 1, "description": "First line to show (default 1)."},
				"to":     map[string]any{"type": "integer", "minimum": 1, "description": "Last line to show (default: end)."},
				"offset": map[string]any{"type": "integer", "minimum": 0, "description": "Continue a cut answer: the offset its last line gives (instead of from)."},
			}),
			ReadOnly: true, Idempotent: true,
		},
		{
			Name:        ToolWrite,
			Description: "Create a note or replace its whole text. Use for new notes and rewrites; use " + ToolEdit + " for small changes.",
			InputSchema: object([]string{"name", "content"}, map[string]any{
				"name":        nameProp(),
				"content":     map[string]any{"type": "string", "description": "The complete Markdown text of the note."},
				"allow_empty": map[string]any{"type": "boolean", "description": "Set to true to replace an existing note with empty text (refused otherwise)."},
			}),
			Destructive: true, Idempotent: true,
		},
		{
			Name:        ToolEdit,
			Description: "Change part of a note by replacing one exact passage. Copy old_text without line numbers; it must match exactly once.",
			InputSchema: object([]string{"name", "old_text", "new_text"}, map[string]any{
				"name":     nameProp(),
				"old_text": map[string]any{"type": "string", "description": "Exact text to replace, whitespace included; add context until it is unique."},
				"new_text": map[string]any{"type": "string", "description": "Replacement text (empty deletes old_text)."},
			}),
			Destructive: true,
		},
		{
			Name:        ToolDelete,
			Description: "Delete a note that is wrong, stale, or merged into another.",
			InputSchema: object([]string{"name"}, map[string]any{
				"name": nameProp(),
			}),
			Destructive: true, Idempotent: true,
		},
	}
}

// Result is what every operation returns: JSON-serializable fields and the
// text a model or person sees.
type Result interface {
	Render() string
}

// Call runs the notes tool named tool with its JSON arguments, as the MCP
// server and the helper protocol receive them. Unknown arguments are refused
// rather than ignored, so a misspelt argument never silently does nothing.
func (sp *Space) Call(tool string, args json.RawMessage) (Result, error) {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	switch tool {
	case ToolList:
		var r ListRequest
		if err := decodeArgs(tool, args, &r); err != nil {
			return nil, err
		}
		return sp.List(r)
	case ToolRead:
		var r ReadRequest
		if err := decodeArgs(tool, args, &r); err != nil {
			return nil, err
		}
		return sp.Read(r)
	case ToolWrite:
		var r WriteRequest
		if err := decodeArgs(tool, args, &r); err != nil {
			return nil, err
		}
		return sp.Write(r)
	case ToolEdit:
		var r EditRequest
		if err := decodeArgs(tool, args, &r); err != nil {
			return nil, err
		}
		return sp.Edit(r)
	case ToolDelete:
		var r DeleteRequest
		if err := decodeArgs(tool, args, &r); err != nil {
			return nil, err
		}
		return sp.Delete(r)
	}
	return nil, refuse(CodeInvalidRequest, "unknown notes tool %q; the tools are %s, %s, %s, %s and %s", tool, ToolList, ToolRead, ToolWrite, ToolEdit, ToolDelete)
}

func decodeArgs(tool string, args json.RawMessage, into any) error {
	// Required arguments are checked by presence: a missing "content" must
	// not silently write an empty note.
	var present map[string]json.RawMessage
	if err := json.Unmarshal(args, &present); err != nil {
		return refuse(CodeInvalidRequest, "%s arguments must be a JSON object: %v", tool, err)
	}
	for _, d := range Tools() {
		if d.Name != tool {
			continue
		}
		for _, req := range d.Required() {
			if _, ok := present[req]; !ok {
				return refuse(CodeInvalidRequest, "%s needs the argument %q; see the tool's input schema", tool, req)
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return refuse(CodeInvalidRequest, "%s arguments: %v; see the tool's input schema", tool, err)
	}
	if dec.More() {
		return refuse(CodeInvalidRequest, "%s arguments: trailing data after the JSON object", tool)
	}
	return nil
}
