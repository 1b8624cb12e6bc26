package reset

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestMergeSettings: layers merge nested objects key by key, anything else
// replaces, and a layer merged in earlier is never changed by a later one.
func TestMergeSettings(t *testing.T) {
	tests := []struct {
		name        string
		base, layer string
		want        string
	}{
		{"new key", `{"a":1}`, `{"b":2}`, `{"a":1,"b":2}`},
		{"scalar replaces scalar", `{"a":1}`, `{"a":2}`, `{"a":2}`},
		{"nested objects merge key by key", `{"env":{"A":"1","B":"2"}}`, `{"env":{"B":"3","C":"4"}}`, `{"env":{"A":"1","B":"3","C":"4"}}`},
		{"deeply nested", `{"a":{"b":{"c":1,"d":2}}}`, `{"a":{"b":{"d":3}}}`, `{"a":{"b":{"c":1,"d":3}}}`},
		{"arrays replace, not append", `{"l":[1,2]}`, `{"l":[3]}`, `{"l":[3]}`},
		{"object replaces scalar", `{"a":1}`, `{"a":{"x":1}}`, `{"a":{"x":1}}`},
		{"scalar replaces object", `{"a":{"x":1}}`, `{"a":false}`, `{"a":false}`},
		{"null replaces", `{"a":{"x":1}}`, `{"a":null}`, `{"a":null}`},
		{"empty layer", `{"a":{"x":1}}`, `{}`, `{"a":{"x":1}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dst, layer := obj(t, tc.base), obj(t, tc.layer)
			base := obj(t, tc.base)
			first := map[string]any{}
			MergeSettings(first, base)
			MergeSettings(first, layer)
			if !reflect.DeepEqual(first, obj(t, tc.want)) {
				t.Errorf("merged %v, want %s", first, tc.want)
			}
			// Merging into the base directly gives the same; the base
			// layer merged into first was not changed by the later one.
			MergeSettings(dst, layer)
			if !reflect.DeepEqual(dst, obj(t, tc.want)) {
				t.Errorf("merged in place %v, want %s", dst, tc.want)
			}
			if !reflect.DeepEqual(base, obj(t, tc.base)) {
				t.Errorf("the base layer changed to %v", base)
			}
		})
	}
}

// TestMergeJSONSettingsFiles: files merge in order, a missing one is
// skipped silently, a broken one is skipped with a note naming it.
func TestMergeJSONSettingsFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	global := write("global.json", `{"model":"a","env":{"X":"1"},"notesoup":{"warn":1}}`)
	project := write("project.json", `{"env":{"Y":"2"},"notesoup":{"warn":2}}`)
	broken := write("broken.json", `{"env":`)
	array := write("array.json", `[1]`)
	huge := write("huge.json", `{"a":"`+strings.Repeat("x", MaxSettingsBytes)+`"}`)
	missing := filepath.Join(dir, "missing.json")

	merged, notes := MergeJSONSettingsFiles([]string{global, missing, broken, project, array, huge})
	want := obj(t, `{"model":"a","env":{"X":"1","Y":"2"},"notesoup":{"warn":2}}`)
	if !reflect.DeepEqual(merged, want) {
		t.Errorf("merged %v, want %v", merged, want)
	}
	wantNotes := []string{broken + " ignored: not valid JSON", array + " ignored: not a JSON object", huge + " not read: " + huge + " is"}
	if len(notes) != len(wantNotes) {
		t.Fatalf("notes %q, want %d", notes, len(wantNotes))
	}
	for i, w := range wantNotes {
		if !strings.HasPrefix(notes[i], w) {
			t.Errorf("note %d = %q, want it to start %q", i, notes[i], w)
		}
	}
}

// obj parses JSON as the settings readers do (numbers as json.Number).
func obj(t *testing.T, s string) map[string]any {
	t.Helper()
	m, err := ParseJSONObject([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
