package gemini

import (
	"errors"
	"fmt"

	"github.com/notesoup/notesoup/shared/jsonedit"
)

// The Gemini CLI reads its settings.json files as JSON with comments: it
// runs them through strip-json-comments before JSON.parse (and writes them
// back through comment-json, which keeps the comments). Trailing commas
// are not accepted. notesoup reads them the same way (shared/jsonedit),
// and edits them by inserting and cutting text (install_settings.go) so
// that a person's comments and layout survive.

// parseSettings decodes one Gemini settings file: JSON with comments,
// whose top level must be an object (the CLI refuses anything else). Empty
// (or all-whitespace) text is an empty object.
func parseSettings(data []byte) (map[string]any, error) {
	return jsonedit.ParseObject(data)
}

// parseDoc parses a settings file for editing; the top level must be an
// object, and the error for one that is not says Gemini refuses it too.
func parseDoc(text []byte) (*jsonedit.Doc, error) {
	d, err := jsonedit.Parse(text)
	if errors.Is(err, jsonedit.ErrNotObject) {
		return nil, fmt.Errorf("%w; Gemini refuses it too", jsonedit.ErrNotObject)
	}
	return d, err
}
