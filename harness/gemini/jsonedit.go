package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// A settings file is edited as text, not decoded and re-encoded: the
// person's comments, key order and layout stay as they are, and taking out
// what was put in gives back the same bytes. The offsets come from the
// file with its comments blanked (blankComments keeps every offset), which
// must be valid JSON before any edit.

// node is one JSON value's place in the text: [start, end) and, for an
// object or array, its members or elements.
type node struct {
	start, end int
	kind       byte // '{', '[', '"' or 0 for a number, true, false, null
	members    []member
	elems      []node
}

// member is one key of an object: the key's quoted start and its value.
type member struct {
	keyStart int
	key      string
	value    node
}

// jsonDoc is a settings file's text and its parsed shape.
type jsonDoc struct {
	text []byte
	root node
}

// parseDoc parses text (JSON with comments) for editing; the top level
// must be an object.
func parseDoc(text []byte) (*jsonDoc, error) {
	plain := blankComments(text)
	if err := checkJSON(plain); err != nil {
		return nil, err
	}
	p := scanner{b: plain}
	p.ws()
	if p.i >= len(plain) || plain[p.i] != '{' {
		return nil, fmt.Errorf("is not a JSON object; Gemini refuses it too")
	}
	root := p.value()
	return &jsonDoc{text: text, root: root}, nil
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

func (p *scanner) value() node {
	n := node{start: p.i, kind: p.b[p.i]}
	switch n.kind {
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
			n.members = append(n.members, member{keyStart: ks, key: key, value: p.value()})
		}
		p.i++
	case '[':
		p.i++
		for p.ws(); p.b[p.i] != ']'; p.ws() {
			if p.b[p.i] == ',' {
				p.i++
				p.ws()
			}
			n.elems = append(n.elems, p.value())
		}
		p.i++
	case '"':
		p.str()
	default:
		n.kind = 0
		for p.i < len(p.b) && !strings.ContainsRune(" \t\r\n,]}", rune(p.b[p.i])) {
			p.i++
		}
	}
	n.end = p.i
	return n
}

// get returns the member key of object n.
func (n node) get(key string) (member, bool) {
	for _, m := range n.members {
		if m.key == key {
			return m, true
		}
	}
	return member{}, false
}

// raw is the value's text (comments blanked out of it are kept).
func (d *jsonDoc) raw(n node) []byte { return d.text[n.start:n.end] }

// decode decodes the value n (its comments blanked) into v.
func (d *jsonDoc) decode(n node, v any) error {
	return json.Unmarshal(blankComments(d.raw(n)), v)
}

// lineIndent is the whitespace that starts the line holding offset at.
func (d *jsonDoc) lineIndent(at int) string {
	ls := bytes.LastIndexByte(d.text[:at], '\n') + 1
	end := ls
	for end < at && (d.text[end] == ' ' || d.text[end] == '\t') {
		end++
	}
	return string(d.text[ls:end])
}

// unit is the file's indentation step, from its first member (two spaces
// when it has none on a line of its own).
func (d *jsonDoc) unit() string {
	if len(d.root.members) > 0 {
		if in := d.lineIndent(d.root.members[0].keyStart); in != "" && bytes.LastIndexByte(d.text[:d.root.members[0].keyStart], '\n') >= d.root.start {
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

// childIndent is the indentation of the members or elements of container
// n, whose own line starts with the indent of at (its key, or itself).
func (d *jsonDoc) childIndent(at int) string { return d.lineIndent(at) + d.unit() }

// addMember inserts "key": v as the last member of object n, whose line
// starts at lineAt. Into an object with members it goes after the last
// one; into an empty one right after its brace, so that removeMember can
// give back exactly the text that was there.
func (d *jsonDoc) addMember(n node, lineAt int, key string, v any) []byte {
	indent := d.childIndent(lineAt)
	k, _ := json.Marshal(key)
	item := "\n" + indent + string(k) + ": " + renderJSON(v, indent, d.unit())
	if len(n.members) == 0 {
		return splice(d.text, n.start+1, n.start+1, item)
	}
	last := n.members[len(n.members)-1].value.end
	return splice(d.text, last, last, ","+item)
}

// addElem appends v to array n, whose line starts at lineAt, the same way.
func (d *jsonDoc) addElem(n node, lineAt int, v any) []byte {
	indent := d.childIndent(lineAt)
	item := "\n" + indent + renderJSON(v, indent, d.unit())
	if len(n.elems) == 0 {
		return splice(d.text, n.start+1, n.start+1, item)
	}
	last := n.elems[len(n.elems)-1].end
	return splice(d.text, last, last, ","+item)
}

// cut removes item i of a container whose items span spans (start of the
// key or value, end of the value), with the comma that joined it: what
// addMember or addElem inserted comes out byte for byte.
func (d *jsonDoc) cut(open int, spans [][2]int, i int) []byte {
	switch {
	case i > 0:
		return splice(d.text, spans[i-1][1], spans[i][1], "")
	case len(spans) == 1:
		return splice(d.text, open+1, spans[0][1], "")
	default:
		return splice(d.text, spans[0][0], spans[1][0], "")
	}
}

// removeMember removes member i of object n.
func (d *jsonDoc) removeMember(n node, i int) []byte {
	spans := make([][2]int, len(n.members))
	for j, m := range n.members {
		spans[j] = [2]int{m.keyStart, m.value.end}
	}
	return d.cut(n.start, spans, i)
}

// removeElem removes element i of array n.
func (d *jsonDoc) removeElem(n node, i int) []byte {
	spans := make([][2]int, len(n.elems))
	for j, e := range n.elems {
		spans[j] = [2]int{e.start, e.end}
	}
	return d.cut(n.start, spans, i)
}

// replace returns the text with value n replaced by v, rendered at the
// indentation of the line it starts on.
func (d *jsonDoc) replace(n node, v any) []byte {
	return splice(d.text, n.start, n.end, renderJSON(v, d.lineIndent(n.start), d.unit()))
}

// emptyAsCreated reports whether container n, emptied, holds exactly what
// is left when the only item addMember/addElem put into a container it
// created is cut: a newline and the container line's indent.
func (d *jsonDoc) emptyAsCreated(n node, lineAt int) bool {
	return string(d.text[n.start+1:n.end-1]) == "\n"+d.lineIndent(lineAt)
}
