package history

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestToolDefinitions(t *testing.T) {
	defs := Tools()
	if len(defs) != 2 || defs[0].Name != ToolList || defs[1].Name != ToolRead {
		t.Fatalf("tools = %+v", defs)
	}
	for _, d := range defs {
		if !d.ReadOnly {
			t.Errorf("%s is not read-only", d.Name)
		}
		if _, err := json.Marshal(d.InputSchema); err != nil {
			t.Errorf("%s schema does not marshal: %v", d.Name, err)
		}
		props := d.InputSchema["properties"].(map[string]any)
		if _, ok := props["session"]; !ok {
			t.Errorf("%s has no session argument", d.Name)
		}
	}
	desc := strings.ToLower(defs[0].Description)
	for _, w := range []string{"plain", "literal", "substring", "case-insensitive"} {
		if !strings.Contains(desc, w) {
			t.Errorf("history_list description lacks %q", w)
		}
	}
	// The schema's properties are exactly the fields the parser accepts.
	for _, d := range defs {
		props := d.InputSchema["properties"].(map[string]any)
		for name := range props {
			raw := `{"` + name + `":` + sample(name) + `}`
			var err error
			if d.Name == ToolList {
				_, err = ParseListArgs([]byte(raw))
			} else {
				_, err = ParseReadArgs([]byte(raw))
			}
			if err != nil && strings.Contains(err.Error(), "unknown field") {
				t.Errorf("%s: schema property %q is refused by the parser: %v", d.Name, name, err)
			}
		}
	}
}

func sample(name string) string {
	switch name {
	case "roles":
		return `["user"]`
	case "oldest":
		return "true"
	case "after", "before", "limit", "seq", "offset":
		return "1"
	}
	return `"x"`
}

func TestParseArgs(t *testing.T) {
	a, err := ParseListArgs([]byte(`{"session":"latest","query":"Foo","roles":["user","tool"],"after":5,"limit":10}`))
	if err != nil || a.Session != "latest" || a.Query != "Foo" || len(a.Roles) != 2 || a.After != 5 || a.Limit != 10 {
		t.Errorf("ParseListArgs = %+v, %v", a, err)
	}
	if _, err := ParseListArgs([]byte(`{"qurey":"x"}`)); err == nil {
		t.Error("misspelt field accepted")
	}
	if _, err := ParseListArgs([]byte(`{"after":3,"before":9}`)); err == nil {
		t.Error("after and before together accepted")
	}
	r, err := ParseReadArgs([]byte(`{"seq":12,"offset":300}`))
	if err != nil || r.Seq != 12 || r.Offset != 300 {
		t.Errorf("ParseReadArgs = %+v, %v", r, err)
	}
	if _, err := ParseReadArgs([]byte(`{}`)); err == nil {
		t.Error("read without seq accepted")
	}
}
