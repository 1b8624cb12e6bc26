// Package tooldef is the one shape of a notesoup tool definition: name,
// description, JSON input schema and MCP hints. shared/notes, shared/history
// and shared/reset each define their tools in it, and every front end (the
// MCP server, the Claude Code mod's and the Pi extension's generated tool
// tables) is produced from those values, so wording and schemas cannot
// drift between harnesses.
package tooldef

// Def is one tool.
type Def struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// InputSchema is a JSON Schema object for the arguments, as plain Go
	// values (maps, slices, strings) ready for json.Marshal.
	InputSchema map[string]any `json:"input_schema"`
	// Hints, as MCP tool annotations name them.
	ReadOnly    bool `json:"read_only"`   // never changes anything
	Destructive bool `json:"destructive"` // may remove or overwrite data
	Idempotent  bool `json:"idempotent"`  // repeating the call changes nothing more
}

// Object returns a closed JSON Schema object with the given properties and
// required names: unknown arguments are refused, never ignored. "required"
// is left out when empty: older JSON Schema drafts (and some validators)
// reject an empty list.
func Object(required []string, props map[string]any) map[string]any {
	s := map[string]any{
		"type":                 "object",
		"properties":           props,
		"additionalProperties": false,
	}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// Required returns the names of the tool's required arguments.
func (d Def) Required() []string {
	r, _ := d.InputSchema["required"].([]string)
	return r
}

// String is the tool's name and description, for logs and listings.
func (d Def) String() string { return d.Name + ": " + d.Description }
