package reset

import "github.com/notesoup/notesoup/shared/tooldef"

// Tool names of the reset tools. Harnesses may prefix them (Claude Code
// shows mod tools as mcp__notesoup__<name>).
const (
	ToolEmptyBrain       = "empty_brain"
	ToolContextRemaining = "get_context_remaining"
)

// EmptyBrainTool is the reset tool's one definition; the Claude Code mod's
// and the Pi extension's tool tables are generated from it. terminate is a
// JSON boolean in the schema; a non-boolean value that a client lets
// through is still refused by Step before anything is recorded.
func EmptyBrainTool() tooldef.Def {
	return tooldef.Def{
		Name: ToolEmptyBrain,
		Description: "Reset your context window to a clean one. Save what matters in the notes first: " +
			"the new window starts with the notes boot block (your notes index and chosen notes), one handoff " +
			"paragraph and your last_word, and none of this conversation. Every tool call in this response " +
			"still finishes; the window is emptied when this turn ends. Unless terminate is true, work " +
			"continues once in the fresh window.",
		InputSchema: tooldef.Object(nil, map[string]any{
			"last_word": map[string]any{"type": "string",
				"description": "A short note to your next window: what to do first. Shown right after the notes."},
			"terminate": map[string]any{"type": "boolean",
				"description": "true: stop after the reset and wait for the user (default false: continue once in the fresh window)."},
		}),
		Destructive: true,
	}
}

// ContextRemainingTool reports the budget (Pi only: the seed keeps budget
// reporting out of the Claude Code mod).
func ContextRemainingTool() tooldef.Def {
	return tooldef.Def{
		Name: ToolContextRemaining,
		Description: "Report the measured size of this context window, the budget warning point and the hard point where " +
			"the window is reset automatically (with the source they come from), and the tokens left before that reset.",
		InputSchema: tooldef.Object(nil, map[string]any{}),
		ReadOnly:    true, Idempotent: true,
	}
}
