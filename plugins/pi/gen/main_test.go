package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/notesoup/notesoup/helper"
	"github.com/notesoup/notesoup/mcpserver"
)

// TestBuildMirrorsSharedDefinitions: every shared tool is generated with its
// Go name, description and schema unchanged, and answered by a helper
// operation that exists.
func TestBuildMirrorsSharedDefinitions(t *testing.T) {
	f, err := build()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Tool{}
	for _, tl := range f.Tools {
		if _, dup := byName[tl.Name]; dup {
			t.Errorf("tool %s generated twice", tl.Name)
		}
		byName[tl.Name] = tl
	}
	ops := helper.Ops()
	for _, want := range mcpserver.Tools() {
		got, ok := byName[want.Name]
		if !ok {
			t.Errorf("shared tool %s missing", want.Name)
			continue
		}
		if got.Description != want.Description || !reflect.DeepEqual(got.Parameters, want.InputSchema) {
			t.Errorf("tool %s differs from its shared definition", want.Name)
		}
		if !slices.Contains(ops, got.Helper) {
			t.Errorf("tool %s maps to helper op %q, which the helper does not have (ops: %v)", want.Name, got.Helper, ops)
		}
		if got.Label == want.Name {
			t.Errorf("tool %s has no label", want.Name)
		}
	}
	for _, name := range []string{"empty_brain", "get_context_remaining"} {
		tl, ok := byName[name]
		if !ok {
			t.Errorf("Pi tool %s missing", name)
			continue
		}
		if tl.Helper != "" {
			t.Errorf("%s is answered by the extension, not a helper op", name)
		}
		if tl.Parameters["type"] != "object" {
			t.Errorf("%s parameters are not an object schema", name)
		}
	}
	if props := byName["empty_brain"].Parameters["properties"].(map[string]any); props["terminate"].(map[string]any)["type"] != "boolean" || props["last_word"].(map[string]any)["type"] != "string" {
		t.Errorf("empty_brain schema: terminate must be boolean and last_word string, got %v", props)
	}
}

func TestHelperOp(t *testing.T) {
	tests := []struct {
		name, want string
		ok         bool
	}{
		{"notes_write", "notes.write", true},
		{"history_list", "history.list", true},
		{"nounderscore", "", false},
	}
	for _, tc := range tests {
		got, err := helperOp(tc.name)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("helperOp(%q) = %q, %v; want %q, ok=%v", tc.name, got, err, tc.want, tc.ok)
		}
	}
}

// TestWriteRoundTrips: the file written is the JSON the extension reads.
func TestWriteRoundTrips(t *testing.T) {
	f, err := build()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sub", "tools.json")
	if err := writeFileAtomic(path, f); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var back File
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(f)
	got, _ := json.Marshal(back)
	if !bytes.Equal(got, want) {
		t.Errorf("the written file does not read back as the built definitions")
	}
}
