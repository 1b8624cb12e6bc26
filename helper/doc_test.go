package helper_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/internal/testbin"
)

// docProject is the project path the doc's examples use; the test maps it
// to a temporary directory.
const docProject = "/work/project"

var docBlock = regexp.MustCompile("(?s)```json (request|response)\n(.*?)\n```")

// TestProtocolDocExamples runs every request in docs/helper-protocol.md
// and checks the documented response, so the doc cannot drift.
func TestProtocolDocExamples(t *testing.T) { eachHelper(t, testProtocolDocExamples) }

func testProtocolDocExamples(t *testing.T, e env) {
	doc, err := os.ReadFile(filepath.Join(testbin.Root(), "docs", "helper-protocol.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := docBlock.FindAllStringSubmatch(string(doc), -1)
	if len(blocks) < 20 || len(blocks)%2 != 0 {
		t.Fatalf("found %d example blocks; want request/response pairs", len(blocks))
	}
	for i := 0; i < len(blocks); i += 2 {
		if blocks[i][1] != "request" || blocks[i+1][1] != "response" {
			t.Fatalf("example %d: want a request followed by its response", i/2+1)
		}
		req := strings.ReplaceAll(blocks[i][2], docProject, "$CWD")
		_, raw := e.run(t, req)
		var got, want any
		if err := json.Unmarshal([]byte(raw), &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(blocks[i+1][2]), &want); err != nil {
			t.Fatalf("example %d: documented response is not JSON: %v", i/2+1, err)
		}
		if path, ok := subset(want, got, "$"); !ok {
			t.Errorf("example %d (%s): response differs from the doc at %s\n got: %s", i/2+1, blocks[i][2], path, raw)
		}
	}
}

// subset reports whether every value in want appears in got; the string
// "<any>" matches any value, and objects may have extra keys.
func subset(want, got any, path string) (string, bool) {
	if want == "<any>" {
		return "", got != nil
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return path, false
		}
		for k, wv := range w {
			if p, ok := subset(wv, g[k], path+"."+k); !ok {
				return p, false
			}
		}
		return "", true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s (length)", path), false
		}
		for i := range w {
			if p, ok := subset(w[i], g[i], fmt.Sprintf("%s[%d]", path, i)); !ok {
				return p, false
			}
		}
		return "", true
	}
	return path, reflect.DeepEqual(want, got)
}
