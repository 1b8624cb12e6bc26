// Package jsonedit edits a harness's JSON settings file (JSON with
// comments allowed) as text, not by decoding and re-encoding it: the
// person's comments, key order and layout stay as they are, and taking out
// what was put in gives back the same bytes. It is what `notesoup install`
// uses for the harnesses whose configuration is JSON (Gemini CLI,
// Copilot CLI, OpenCode). The offsets come from the file with its
// comments blanked (BlankComments keeps every offset), which must be
// valid JSON before any edit.
package jsonedit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrNotObject is what Parse's error wraps when the text is JSON but its
// top level is not an object; a harness can then say in its own words
// that its CLI refuses such a file too.
var ErrNotObject = errors.New("is not a JSON object")

// Node is one JSON value's place in the text: [Start, End) and, for an
// object or array, its members or elements.
type Node struct {
	Start, End int
	// Kind is '{', '[', '"' or 0 for a number, true, false, null.
	Kind    byte
	Members []Member
	Elems   []Node
}

// Member is one key of an object: the key's quoted start and its value.
type Member struct {
	KeyStart int
	Key      string
	Value    Node
}

// Doc is a settings file's text and its parsed shape.
type Doc struct {
	Text []byte
	Root Node
}

// Parse parses text (JSON with comments) for editing; the top level must
// be an object. Errors say where the text is not JSON, by line.
func Parse(text []byte) (*Doc, error) {
	plain := BlankComments(text)
	if err := CheckJSON(plain); err != nil {
		return nil, err
	}
	p := scanner{b: plain}
	p.ws()
	if p.i >= len(plain) || plain[p.i] != '{' {
		return nil, fmt.Errorf("%w; the harness refuses it too", ErrNotObject)
	}
	return &Doc{Text: text, Root: p.value()}, nil
}

// scanner walks JSON already known to be valid.
type scanner struct {
	b []byte
	i int
}

func (p *scanner) ws() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

func (p *scanner) str() {
	for p.i++; p.i < len(p.b) && p.b[p.i] != '"'; p.i++ {
		if p.b[p.i] == '\\' {
			p.i++
		}
	}
	p.i++
}

func (p *scanner) value() Node {
	n := Node{Start: p.i, Kind: p.b[p.i]}
	switch n.Kind {
	case '{':
		p.i++
		for p.ws(); p.b[p.i] != '}'; p.ws() {
			if p.b[p.i] == ',' {
				p.i++
				p.ws()
			}
			ks := p.i
			p.str()
			var key string
			_ = json.Unmarshal(p.b[ks:p.i], &key)
			p.ws()
			p.i++ // ':'
			p.ws()
			n.Members = append(n.Members, Member{KeyStart: ks, Key: key, Value: p.value()})
		}
		p.i++
	case '[':
		p.i++
		for p.ws(); p.b[p.i] != ']'; p.ws() {
			if p.b[p.i] == ',' {
				p.i++
				p.ws()
			}
			n.Elems = append(n.Elems, p.value())
		}
		p.i++
	case '"':
		p.str()
	default:
		n.Kind = 0
		for p.i < len(p.b) && !strings.ContainsRune(" \t\r\n,]}", rune(p.b[p.i])) {
			p.i++
		}
	}
	n.End = p.i
	return n
}

// Get returns the member key of object n.
func (n Node) Get(key string) (Member, bool) {
	for _, m := range n.Members {
		if m.Key == key {
			return m, true
		}
	}
	return Member{}, false
}

// Index returns the position of member key in object n, or -1.
func (n Node) Index(key string) int {
	for i, m := range n.Members {
		if m.Key == key {
			return i
		}
	}
	return -1
}

// Raw is the value's text (comments in it kept).
func (d *Doc) Raw(n Node) []byte { return d.Text[n.Start:n.End] }

// Decode decodes the value n (its comments blanked) into v.
func (d *Doc) Decode(n Node, v any) error {
	return json.Unmarshal(BlankComments(d.Raw(n)), v)
}

// lineIndent is the whitespace that starts the line holding offset at.
func (d *Doc) lineIndent(at int) string {
	ls := bytes.LastIndexByte(d.Text[:at], '\n') + 1
	end := ls
	for end < at && (d.Text[end] == ' ' || d.Text[end] == '\t') {
		end++
	}
	return string(d.Text[ls:end])
}

// unit is the file's indentation step, from its first member (two spaces
// when it has none on a line of its own).
func (d *Doc) unit() string {
	if len(d.Root.Members) > 0 {
		if in := d.lineIndent(d.Root.Members[0].KeyStart); in != "" && bytes.LastIndexByte(d.Text[:d.Root.Members[0].KeyStart], '\n') >= d.Root.Start {
			return in
		}
	}
	return "  "
}

// renderJSON is v as indented JSON whose continuation lines start at indent.
func renderJSON(v any, indent, unit string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(indent, unit)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// splice returns text with [from, to) replaced by with.
func splice(text []byte, from, to int, with string) []byte {
	out := make([]byte, 0, len(text)-(to-from)+len(with))
	out = append(out, text[:from]...)
	out = append(out, with...)
	return append(out, text[to:]...)
}

// childIndent is the indentation of the members or elements of a
// container whose own line starts with the indent of at.
func (d *Doc) childIndent(at int) string { return d.lineIndent(at) + d.unit() }

// AddMember returns the text with "key": v inserted as the last member of
// object n, whose line starts at lineAt (its key's KeyStart, or Start for
// the root). Into an object with members it goes after the last one; into
// an empty one right after its brace, so that RemoveMember gives back
// exactly the text that was there.
func (d *Doc) AddMember(n Node, lineAt int, key string, v any) []byte {
	indent := d.childIndent(lineAt)
	k, _ := json.Marshal(key)
	item := "\n" + indent + string(k) + ": " + renderJSON(v, indent, d.unit())
	if len(n.Members) == 0 {
		return splice(d.Text, n.Start+1, n.Start+1, item)
	}
	last := n.Members[len(n.Members)-1].Value.End
	return splice(d.Text, last, last, ","+item)
}

// AddElem returns the text with v appended to array n, whose line starts
// at lineAt, the same way.
func (d *Doc) AddElem(n Node, lineAt int, v any) []byte {
	indent := d.childIndent(lineAt)
	item := "\n" + indent + renderJSON(v, indent, d.unit())
	if len(n.Elems) == 0 {
		return splice(d.Text, n.Start+1, n.Start+1, item)
	}
	last := n.Elems[len(n.Elems)-1].End
	return splice(d.Text, last, last, ","+item)
}

// cut removes item i of a container whose items span spans (start of the
// key or value, end of the value), with the comma that joined it: what
// AddMember or AddElem inserted comes out byte for byte.
func (d *Doc) cut(open int, spans [][2]int, i int) []byte {
	switch {
	case i > 0:
		return splice(d.Text, spans[i-1][1], spans[i][1], "")
	case len(spans) == 1:
		return splice(d.Text, open+1, spans[0][1], "")
	default:
		return splice(d.Text, spans[0][0], spans[1][0], "")
	}
}

// RemoveMember returns the text without member i of object n.
func (d *Doc) RemoveMember(n Node, i int) []byte {
	spans := make([][2]int, len(n.Members))
	for j, m := range n.Members {
		spans[j] = [2]int{m.KeyStart, m.Value.End}
	}
	return d.cut(n.Start, spans, i)
}

// RemoveElem returns the text without element i of array n.
func (d *Doc) RemoveElem(n Node, i int) []byte {
	spans := make([][2]int, len(n.Elems))
	for j, e := range n.Elems {
		spans[j] = [2]int{e.Start, e.End}
	}
	return d.cut(n.Start, spans, i)
}

// Replace returns the text with value n replaced by v, rendered at the
// indentation of the line it starts on.
func (d *Doc) Replace(n Node, v any) []byte {
	return splice(d.Text, n.Start, n.End, renderJSON(v, d.lineIndent(n.Start), d.unit()))
}

// EmptyAsCreated reports whether container n, emptied, holds exactly what
// is left when the only item AddMember/AddElem put into a container it
// created is cut: a newline and the container line's indent. Only such a
// container is removed again; one the person wrote stays.
func (d *Doc) EmptyAsCreated(n Node, lineAt int) bool {
	return string(d.Text[n.Start+1:n.End-1]) == "\n"+d.lineIndent(lineAt)
}

// DropIfEmpty returns text without the top-level member key when its
// object or array is empty the way AddMember leaves one it created.
func DropIfEmpty(text []byte, key string) ([]byte, error) {
	d, err := Parse(text)
	if err != nil {
		return nil, err
	}
	for i, m := range d.Root.Members {
		if m.Key == key && (m.Value.Kind == '{' && len(m.Value.Members) == 0 || m.Value.Kind == '[' && len(m.Value.Elems) == 0) &&
			d.EmptyAsCreated(m.Value, m.KeyStart) {
			return d.RemoveMember(d.Root, i), nil
		}
	}
	return text, nil
}

// BlankComments returns data with every comment outside a string replaced
// by spaces, newlines kept: the same bytes at the same offsets otherwise,
// so offsets found in the result are offsets in data, and a JSON syntax
// error's line is the file's line. An unterminated block comment runs to
// the end, as in strip-json-comments.
func BlankComments(data []byte) []byte {
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

// CheckJSON reports where plain (comments already blanked) is not JSON,
// by line, since a person fixes the file in an editor. Empty text is
// accepted (an empty settings file).
func CheckJSON(plain []byte) error {
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

// ParseObject decodes a settings file of JSON with comments into a generic
// object, numbers kept as json.Number (DecodeObject). Empty (or
// all-whitespace) text is an empty object; a top level that is not an
// object is an error, and text that is not JSON is reported by line.
func ParseObject(data []byte) (map[string]any, error) {
	plain := BlankComments(data)
	if err := CheckJSON(plain); err != nil {
		return nil, err
	}
	return DecodeObject(plain)
}

// DecodeObject decodes plain JSON (no comments) into a generic object,
// numbers kept as json.Number. Empty input is an empty object; anything but
// a JSON object is an error, so a caller reading settings can note it and
// fall through. This package imports nothing of notesoup's, so an external
// plugin (harness/opencode) can edit its harness's settings with it and
// link no more than the contract.
func DecodeObject(data []byte) (map[string]any, error) {
	if len(strings.TrimSpace(string(data))) == 0 {
		return map[string]any{}, nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not a JSON object")
	}
	return obj, nil
}
