package helper

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/notesoup/notesoup/internal/strictjson"
	"github.com/notesoup/notesoup/shared/tooldef"
)

// checkToolArgs checks a tool's arguments against its input schema before
// the tool runs, so a refusal names the argument at fault (args.<name>):
// the notes tools themselves answer invalid_request with no field.
// Names are matched exactly (encoding/json would take "Name" for "name"),
// strings must be valid Unicode (no lone surrogates), and each argument
// must have the JSON type its schema gives.
func checkToolArgs(def tooldef.Def, raw json.RawMessage) *Error {
	var args map[string]json.RawMessage
	if err := json.Unmarshal(raw, &args); err != nil || args == nil {
		return argErr("args", "%s arguments must be a JSON object", def.Name)
	}
	if err := strictjson.Check(raw); err != nil {
		return decodeErr("args.", err)
	}
	props, _ := def.InputSchema["properties"].(map[string]any)
	names := make([]string, 0, len(args))
	for k := range args {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		p, ok := props[k].(map[string]any)
		if !ok {
			return argErr("args."+k, "unknown argument %q of %s; its arguments: %s", k, def.Name, propNames(props))
		}
		want, _ := p["type"].(string)
		if want != "" && !hasType(args[k], want) {
			return argErr("args."+k, "args.%s must be %s, not %s", k, article(want), jsonKind(args[k]))
		}
	}
	for _, req := range def.Required() {
		if _, ok := args[req]; !ok {
			return argErr("args."+req, "%s needs the argument %q", def.Name, req)
		}
	}
	return nil
}

func propNames(props map[string]any) string {
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	return fmt.Sprint(names)
}

func article(t string) string {
	switch t {
	case "integer", "object", "array":
		return "an " + t
	}
	return "a " + t
}

// jsonKind names the JSON type of a raw value.
func jsonKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	if hasType(raw, "integer") {
		return "an integer"
	}
	return "a number"
}

// hasType reports whether raw is of the JSON Schema type t.
func hasType(raw json.RawMessage, t string) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch t {
	case "string":
		return raw[0] == '"'
	case "boolean":
		return raw[0] == 't' || raw[0] == 'f'
	case "object":
		return raw[0] == '{'
	case "array":
		return raw[0] == '['
	case "number":
		var n json.Number
		return json.Unmarshal(raw, &n) == nil && raw[0] != '"'
	case "integer":
		var n json.Number
		if json.Unmarshal(raw, &n) != nil || raw[0] == '"' {
			return false
		}
		_, err := n.Int64()
		return err == nil
	}
	return true
}
