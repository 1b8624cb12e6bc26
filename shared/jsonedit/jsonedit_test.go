package jsonedit

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestAddRemoveRoundTrip: adding a member and an element and cutting them
// again gives back the original bytes, comments and layout included, and
// what was added is where JSON readers find it.
func TestAddRemoveRoundTrip(t *testing.T) {
	for _, tc := range []struct{ name, text string }{
		{"empty object", "{\n}\n"},
		{"one line", `{"a": 1}`},
		{"comments", "{\n  // mine\n  \"a\": [1, /* two */ 2],\n  \"b\": {\"c\": \"//not a comment\"}\n}\n"},
		{"tabs", "{\n\t\"a\": {\n\t\t\"x\": true\n\t}\n}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse([]byte(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			added := d.AddMember(d.Root, d.Root.Start, "mcp", map[string]any{"notesoup": []string{"x"}})
			d2, err := Parse(added)
			if err != nil {
				t.Fatalf("added text is not JSON: %v\n%s", err, added)
			}
			m, ok := d2.Root.Get("mcp")
			if !ok {
				t.Fatalf("mcp not found in\n%s", added)
			}
			var v map[string][]string
			if err := d2.Decode(m.Value, &v); err != nil || v["notesoup"][0] != "x" {
				t.Fatalf("decoded %v, %v", v, err)
			}
			back := d2.RemoveMember(d2.Root, d2.Root.Index("mcp"))
			if string(back) != tc.text {
				t.Fatalf("round trip changed the text:\n%q\nwant\n%q", back, tc.text)
			}
			// An array the person wrote keeps its place when an element is added and cut.
			if a, ok := d.Root.Get("a"); ok && a.Value.Kind == '[' {
				withElem := d.AddElem(a.Value, a.KeyStart, "z")
				d3, err := Parse(withElem)
				if err != nil {
					t.Fatal(err)
				}
				a3, _ := d3.Root.Get("a")
				if got := string(d3.RemoveElem(a3.Value, len(a3.Value.Elems)-1)); got != tc.text {
					t.Fatalf("element round trip:\n%q\nwant\n%q", got, tc.text)
				}
			}
		})
	}
}

// TestDropIfEmpty: a container left empty the way AddMember created it is
// removed; one the person wrote empty stays.
func TestDropIfEmpty(t *testing.T) {
	d, _ := Parse([]byte("{\n  \"keep\": {}\n}\n"))
	added := d.AddMember(d.Root, d.Root.Start, "mcp", map[string]int{"x": 1})
	d2, _ := Parse(added)
	m, _ := d2.Root.Get("mcp")
	cut := d2.RemoveMember(m.Value, 0)
	got, err := DropIfEmpty(cut, "mcp")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), "mcp") {
		t.Fatalf("emptied container kept:\n%s", got)
	}
	got, _ = DropIfEmpty(got, "keep")
	if !strings.Contains(string(got), `"keep": {}`) {
		t.Fatalf("the person's empty object was dropped:\n%s", got)
	}
}

// TestParseErrors: not JSON is reported by line; a top level that is not
// an object is refused.
func TestParseErrors(t *testing.T) {
	if _, err := Parse([]byte("{\n  \"a\": 1,\n}\n")); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("trailing comma: %v", err)
	}
	if _, err := Parse([]byte("[1]")); err == nil {
		t.Fatal("array top level accepted")
	}
	if _, err := Parse([]byte("")); err == nil {
		t.Fatal("empty text parsed as an object")
	}
}

// TestBlankComments: comments become spaces at the same offsets, strings
// keep comment-like text, and an unterminated block comment runs to the
// end.
func TestBlankComments(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"a": 1} // c`, `{"a": 1}     `},
		{"{\"a\": /* x\ny */ 1}", "{\"a\":     \n     1}"},
		{`{"u": "http://x/*y*/"}`, `{"u": "http://x/*y*/"}`},
		{`{"q": "a\"//b"} //z`, `{"q": "a\"//b"}    `},
		{"// only\r\n{}", "       \r\n{}"},
		{"{} /* open", "{}        "},
	}
	for _, tc := range cases {
		if got := string(BlankComments([]byte(tc.in))); got != tc.want {
			t.Errorf("BlankComments(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestParseObject: JSON with comments decodes with numbers kept exact,
// empty text is an empty object, a trailing comma is reported by line and
// a top level that is not an object is refused.
func TestParseObject(t *testing.T) {
	for _, tc := range []struct {
		name, in, err string
		want          map[string]any
	}{
		{name: "comments", in: "{\n// c\n\"a\": /* n */ 0.25\n}", want: map[string]any{"a": json.Number("0.25")}},
		{name: "empty", in: " \n", want: map[string]any{}},
		{name: "trailing comma", in: "{\n// c\n\"a\": [1,2,],\n}", err: "line 3"},
		{name: "array", in: `[1]`, err: "not a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseObject([]byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one naming %q", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("ParseObject(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
}

// TestParseNotObject: a top level that is not an object wraps ErrNotObject,
// so a harness can name its own CLI in the message.
func TestParseNotObject(t *testing.T) {
	if _, err := Parse([]byte(`"x"`)); !errors.Is(err, ErrNotObject) {
		t.Fatalf("Parse of a string: %v, want ErrNotObject", err)
	}
	if _, err := Parse([]byte("{\n  \"a\": 1,\n}")); errors.Is(err, ErrNotObject) {
		t.Fatalf("a syntax error wraps ErrNotObject: %v", err)
	}
}
