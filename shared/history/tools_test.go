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

// TestZeroCursors: an explicit after 0 pages from the beginning (it used to
// return the newest page, as if no cursor were given), before 0 is refused,
// and an absent cursor still gives the newest page.
func TestZeroCursors(t *testing.T) {
	evs := dialogue(40) // more listable entries than one page of 5
	tests := []struct {
		name      string
		raw       string
		wantErr   string
		wantFirst int64 // seq of the page's first entry
	}{
		{name: "after 0 is from the beginning", raw: `{"after":0,"limit":5}`, wantFirst: 1},
		{name: "after 0 with oldest", raw: `{"after":0,"oldest":true,"limit":5}`, wantFirst: 1},
		{name: "no cursor is the newest page", raw: `{"limit":5}`, wantFirst: -1},
		{name: "before 0 refused", raw: `{"before":0}`, wantErr: "before=0"},
		{name: "after 0 and before refused", raw: `{"after":0,"before":9}`, wantErr: "not both"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := ParseListArgs([]byte(tc.raw))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p, err := List(Slice(evs), a.ListQuery, RenderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := seqs(p)
			if len(got) != 5 {
				t.Fatalf("page %v, want 5 entries", got)
			}
			if tc.wantFirst > 0 && got[0] != tc.wantFirst {
				t.Fatalf("page starts at #%d, want #%d", got[0], tc.wantFirst)
			}
			if tc.wantFirst < 0 && got[4] != evs[len(evs)-1].Seq {
				t.Fatalf("page %v does not end at the newest entry #%d", got, evs[len(evs)-1].Seq)
			}
		})
	}
}

// TestSessionDocNamesNoHarness: harness names come from the registry, so
// the selector documentation must not list a fixed set.
func TestSessionDocNamesNoHarness(t *testing.T) {
	for _, d := range Tools() {
		doc := d.InputSchema["properties"].(map[string]any)["session"].(map[string]any)["description"].(string)
		if strings.Contains(doc, "claude, pi or codex") || !strings.Contains(doc, "notesoup plugins") {
			t.Errorf("%s session doc lists harnesses instead of pointing at the registry: %s", d.Name, doc)
		}
	}
}
