package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/notesoup/notesoup/shared/reset"
)

// The Gemini CLI reads its settings.json files as JSON with comments: it
// runs them through strip-json-comments before JSON.parse (and writes them
// back through comment-json, which keeps the comments). Trailing commas
// are not accepted. notesoup reads them the same way, and edits them by
// inserting and cutting text (install_settings.go) so that a person's
// comments and layout survive.

// blankComments returns data with every comment outside a string replaced
// by spaces, newlines kept: the same bytes at the same offsets otherwise,
// so offsets found in the result are offsets in data, and a JSON syntax
// error's line is the file's line. An unterminated block comment runs to
// the end, as in strip-json-comments.
func blankComments(data []byte) []byte {
	out := bytes.Clone(data)
	inString := false
	for i := 0; i < len(out); i++ {
		c := out[i]
		if inString {
			switch c {
			case '\\':
				i++ // the escaped byte, a quote included
			case '"':
				inString = false
			}
			continue
		}
		switch {
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				if out[i] != '\r' {
					out[i] = ' '
				}
			}
			i-- // the newline, if any, is seen again as whitespace
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			out[i], out[i+1] = ' ', ' '
			for i += 2; i < len(out); i++ {
				if out[i] == '*' && i+1 < len(out) && out[i+1] == '/' {
					out[i], out[i+1] = ' ', ' '
					i++
					break
				}
				if out[i] != '\n' && out[i] != '\r' {
					out[i] = ' '
				}
			}
		}
	}
	return out
}

// hasComments reports whether data holds a comment outside its strings.
func hasComments(data []byte) bool {
	return !bytes.Equal(blankComments(data), data)
}

// parseSettings decodes one Gemini settings file: JSON with comments,
// whose top level must be an object (the CLI refuses anything else). Empty
// (or all-whitespace) text is an empty object.
func parseSettings(data []byte) (map[string]any, error) {
	plain := blankComments(data)
	if err := checkJSON(plain); err != nil {
		return nil, err
	}
	return reset.ParseJSONObject(plain)
}

// checkJSON reports where plain (comments already blanked) is not JSON,
// by line, since a person fixes the file in an editor.
func checkJSON(plain []byte) error {
	if len(bytes.TrimSpace(plain)) == 0 || json.Valid(plain) {
		return nil
	}
	var v any
	err := json.Unmarshal(plain, &v)
	if se, ok := err.(*json.SyntaxError); ok {
		line := 1 + bytes.Count(plain[:min(int(se.Offset), len(plain))], []byte{'\n'})
		return fmt.Errorf("not valid JSON at line %d: %v (comments are fine, trailing commas are not)", line, se)
	}
	return fmt.Errorf("not valid JSON: %v", err)
}
