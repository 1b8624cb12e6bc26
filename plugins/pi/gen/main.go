// Command gen writes the Pi extension's tool definitions (names,
// descriptions, JSON schemas, hints) as JSON, from the Go definitions every
// harness shares: mcpserver.Tools() (the five notes tools and the two history
// tools) plus the two Pi-side reset tools defined below. The extension reads
// the file at load time, so no tool wording or schema is written twice.
//
//	go run ./plugins/pi/gen -out plugins/pi/generated/tools.json
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/notesoup/notesoup/shared/reset"
	"github.com/notesoup/notesoup/shared/tooldef"
	"io"
	"os"
	"path/filepath"

	"github.com/notesoup/notesoup/mcpserver"
)

// Tool is one tool as the Pi extension registers it. Helper names the
// helper-protocol operation that answers it ("" for tools the extension
// answers by driving the reset flow or measuring context itself).
type Tool struct {
	Name        string         `json:"name"`
	Label       string         `json:"label"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
	Helper      string         `json:"helper,omitempty"`
	ReadOnly    bool           `json:"read_only,omitempty"`
	Destructive bool           `json:"destructive,omitempty"`
	Idempotent  bool           `json:"idempotent,omitempty"`
}

// File is the generated file.
type File struct {
	// Generator says where the file came from, so nobody edits it by hand.
	Generator string `json:"generator"`
	Tools     []Tool `json:"tools"`
}

// ContextToolName is the Pi-only budget report tool (the seed keeps budget
// reporting Pi-only).
const ContextToolName = reset.ToolContextRemaining

// resetTools are the reset tool and the budget report, from their one
// definition in shared/reset (the reset tool's argument rules are enforced
// by shared/reset's reset_requested event, whatever the schema lets through).
func resetTools() []Tool {
	var out []Tool
	for _, d := range []tooldef.Def{reset.EmptyBrainTool(), reset.ContextRemainingTool()} {
		out = append(out, Tool{Name: d.Name, Label: resetLabels[d.Name], Description: d.Description, Parameters: d.InputSchema,
			ReadOnly: d.ReadOnly, Destructive: d.Destructive, Idempotent: d.Idempotent})
	}
	return out
}

// resetLabels are the short titles Pi shows for the reset tools.
var resetLabels = map[string]string{reset.ToolEmptyBrain: "Empty brain", reset.ToolContextRemaining: "Context remaining"}

// labels are the short titles Pi shows for a tool call.
var labels = map[string]string{
	"notes_list": "Notes: list", "notes_read": "Notes: read", "notes_write": "Notes: write",
	"notes_edit": "Notes: edit", "notes_delete": "Notes: delete",
	"history_list": "History: list", "history_read": "History: read",
}

// build assembles the file from the shared definitions.
func build() (File, error) {
	f := File{Generator: "go run ./plugins/pi/gen (from mcpserver.Tools() and plugins/pi/gen); do not edit"}
	for _, t := range mcpserver.Tools() {
		op, err := helperOp(t.Name)
		if err != nil {
			return File{}, err
		}
		label := labels[t.Name]
		if label == "" {
			label = t.Name
		}
		f.Tools = append(f.Tools, Tool{Name: t.Name, Label: label, Description: t.Description, Parameters: t.InputSchema,
			Helper: op, ReadOnly: t.ReadOnly, Destructive: t.Destructive, Idempotent: t.Idempotent})
	}
	f.Tools = append(f.Tools, resetTools()...)
	return f, nil
}

// helperOp maps a shared tool name to its helper operation: notes_write →
// notes.write, history_list → history.list.
func helperOp(name string) (string, error) {
	for i := 0; i < len(name); i++ {
		if name[i] == '_' {
			return name[:i] + "." + name[i+1:], nil
		}
	}
	return "", fmt.Errorf("tool %q has no <group>_<op> name; the helper operation cannot be derived", name)
}

func write(w io.Writer, f File) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// writeFileAtomic writes data to path through a temp file and a rename, so
// a reader never sees half a file.
func writeFileAtomic(path string, f File) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tools-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp, f); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func main() {
	out := flag.String("out", "", "write the tool definitions to this file (default: stdout)")
	flag.Parse()
	f, err := build()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if *out == "" {
		err = write(os.Stdout, f)
	} else {
		err = writeFileAtomic(*out, f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
