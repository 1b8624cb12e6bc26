//go:build !light

package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/mcpserver"
)

// harnessesDoc is the capability table this test keeps true.
const harnessesDoc = "../../docs/harnesses.md"

// tableRows returns the table's body rows as cells (header and rule skipped).
func tableRows(t *testing.T, doc string) (header []string, rows [][]string) {
	t.Helper()
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		switch {
		case header == nil:
			header = cells
		case strings.HasPrefix(cells[0], "---"):
		default:
			rows = append(rows, cells)
		}
	}
	return header, rows
}

// repoTests returns the names of every Test function in the repository.
func repoTests(t *testing.T) map[string]bool {
	t.Helper()
	re := regexp.MustCompile(`(?m)^func (Test\w+)\(`)
	out := map[string]bool{}
	err := filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".tools" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, "_test.go") {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range re.FindAllStringSubmatch(string(b), -1) {
				out[m[1]] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestHarnessesTable(t *testing.T) {
	raw, err := os.ReadFile(harnessesDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	header, rows := tableRows(t, doc)
	want := []string{"Feature", "Claude Code (mod)", "Pi (extension)", "Codex (MCP server + hooks)"}
	if strings.Join(header, "|") != strings.Join(want, "|") {
		t.Fatalf("header = %q, want %q", header, want)
	}
	if len(rows) < 15 {
		t.Fatalf("only %d rows; the table has a row per feature of the Claude Code mod", len(rows))
	}
	tests := repoTests(t)
	verdict := regexp.MustCompile(`^\*\*(works|partly|no)\*\* — `)
	testRef := regexp.MustCompile(`\bTest[A-Z]\w*`)
	for _, r := range rows {
		if len(r) != len(want) {
			t.Errorf("row %q has %d cells, want %d", r[0], len(r), len(want))
			continue
		}
		for i, c := range r {
			if c == "" {
				t.Errorf("row %q: empty %s cell; say how it works or why it cannot", r[0], want[i])
			}
		}
		codex := r[3]
		m := verdict.FindStringSubmatch(codex)
		if m == nil {
			t.Errorf("row %q: Codex cell must start with **works**, **partly** or **no** — : %.60q", r[0], codex)
			continue
		}
		refs := testRef.FindAllString(codex, -1)
		if m[1] != "no" && len(refs) == 0 {
			t.Errorf("row %q: Codex cell says %s but names no test", r[0], m[1])
		}
		for _, ref := range refs {
			if !tests[ref] {
				t.Errorf("row %q: Codex cell names %s, which is no test in the repository", r[0], ref)
			}
		}
		if strings.Contains(r[0], "empty_brain") && m[1] != "no" {
			t.Errorf("Codex offers no reset tool, but the empty_brain row says %s", m[1])
		}
	}
	// Every notes/history tool named exists, and every served tool is named.
	served := map[string]bool{}
	for _, tool := range mcpserver.Tools() {
		served[tool.Name] = true
		if !strings.Contains(doc, "`"+tool.Name+"`") {
			t.Errorf("the table does not name the served tool %s", tool.Name)
		}
	}
	for _, m := range regexp.MustCompile("`((?:notes|history)_[a-z]+)`").FindAllStringSubmatch(doc, -1) {
		if !served[m[1]] {
			t.Errorf("the table names %s, which notesoup mcp does not serve", m[1])
		}
	}
}
