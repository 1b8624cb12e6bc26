// Package strictjson decodes JSON requests from untrusted callers strictly:
// one value and nothing after it, field names matched exactly (encoding/json
// matches them case-insensitively, so "V" would set v), no unknown or
// duplicate fields, and every string valid Unicode (encoding/json silently
// replaces invalid UTF-8 and escaped lone surrogates such as \ud800 with
// U+FFFD, so a note would be written with text the caller never sent).
// Every refusal is an *Error naming the JSON path at fault, so a protocol
// can say which field to fix.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is a refusal of one part of the input.
type Error struct {
	// Field is the JSON path at fault, "caller.cwd" or "roles[1]"; empty
	// when the value as a whole is at fault.
	Field string
	// Msg says what is wrong, for a person.
	Msg string
}

func (e *Error) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

// Decode decodes data, which must hold exactly one JSON value, into v. Unknown
// fields, fields whose name differs from the Go field's only in case,
// duplicate fields, invalid UTF-8 and lone surrogates are refused as *Error;
// a wrong type is encoding/json's *json.UnmarshalTypeError (its Field is the
// path), and malformed JSON its *json.SyntaxError.
func Decode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if f, ok := unknownFieldName(err); ok {
			// checkNames finds the same field with its whole path.
			if e := checkNames(data, reflect.TypeOf(v), ""); e != nil {
				return e
			}
			return &Error{Field: f, Msg: fmt.Sprintf("unknown field %q", f)}
		}
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return &Error{Msg: "trailing data after the JSON value"}
	}
	if err := Check(data); err != nil {
		return err
	}
	return checkNames(data, reflect.TypeOf(v), "")
}

// unknownFieldName reads the name out of encoding/json's unknown-field
// error, which has no type of its own.
func unknownFieldName(err error) (string, bool) {
	const prefix = `json: unknown field "`
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) || !strings.HasSuffix(msg, `"`) {
		return "", false
	}
	return msg[len(prefix) : len(msg)-1], true
}

// Check scans one syntactically valid JSON value and refuses invalid UTF-8,
// escaped lone surrogates and duplicate field names, naming the path of the
// string or field. It does not check syntax: decode first.
func Check(data []byte) error {
	type frame struct {
		obj  bool
		key  string
		idx  int
		keys map[string]struct{}
	}
	var stack []frame
	path := func(withLeaf bool) string {
		var b strings.Builder
		n := len(stack)
		if !withLeaf {
			n--
		}
		for i := 0; i < n; i++ {
			f := stack[i]
			if f.obj {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(f.key)
			} else {
				fmt.Fprintf(&b, "[%d]", f.idx)
			}
		}
		return b.String()
	}
	expectKey := false
	for i := 0; i < len(data); {
		switch data[i] {
		case '{':
			stack = append(stack, frame{obj: true})
			expectKey = true
			i++
		case '[':
			stack = append(stack, frame{})
			i++
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			expectKey = false
			i++
		case ',':
			if len(stack) > 0 {
				if top := &stack[len(stack)-1]; top.obj {
					expectKey = true
				} else {
					top.idx++
				}
			}
			i++
		case '"':
			end, msg := scanString(data, i)
			isKey := expectKey && len(stack) > 0 && stack[len(stack)-1].obj
			if msg != "" {
				if isKey {
					return &Error{Field: path(false), Msg: "a field name " + msg}
				}
				return &Error{Field: path(true), Msg: msg}
			}
			if isKey {
				top := &stack[len(stack)-1]
				var k string
				if err := json.Unmarshal(data[i:end], &k); err != nil {
					return &Error{Field: path(false), Msg: "malformed field name"}
				}
				if _, dup := top.keys[k]; dup {
					top.key = k
					return &Error{Field: path(true), Msg: fmt.Sprintf("field %q is given twice", k)}
				}
				if top.keys == nil {
					top.keys = map[string]struct{}{}
				}
				top.keys[k] = struct{}{}
				top.key = k
				expectKey = false
			}
			i = end
		default:
			i++
		}
	}
	return nil
}

// scanString returns the end (one past the closing quote) of the string
// starting at data[i], and what is wrong with it ("" when nothing).
func scanString(data []byte, i int) (int, string) {
	i++ // opening quote
	for i < len(data) {
		c := data[i]
		switch {
		case c == '"':
			return i + 1, ""
		case c == '\\':
			if i+1 < len(data) && data[i+1] == 'u' {
				r, ok := hex4(data, i+2)
				if !ok {
					return len(data), "has a malformed \\u escape"
				}
				switch {
				case r >= 0xD800 && r < 0xDC00:
					lo, ok := rune(0), false
					if i+7 < len(data) && data[i+6] == '\\' && data[i+7] == 'u' {
						lo, ok = hex4(data, i+8)
					}
					if !ok || lo < 0xDC00 || lo >= 0xE000 {
						return len(data), fmt.Sprintf("holds a lone surrogate \\u%04x (not valid Unicode); send the character itself or a complete surrogate pair", r)
					}
					i += 12
				case r >= 0xDC00 && r < 0xE000:
					return len(data), fmt.Sprintf("holds a lone surrogate \\u%04x (not valid Unicode); send the character itself or a complete surrogate pair", r)
				default:
					i += 6
				}
				continue
			}
			i += 2
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size <= 1 {
				return len(data), "is not valid UTF-8"
			}
			i += size
		}
	}
	return len(data), "is not terminated"
}

func hex4(data []byte, at int) (rune, bool) {
	if at+4 > len(data) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(data[at:at+4]), 16, 32)
	return rune(v), err == nil
}

var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

// checkNames refuses object keys that name no field of t exactly, for t and
// the structs nested in it (encoding/json has already refused names that
// match no field even ignoring case).
func checkNames(data []byte, t reflect.Type, path string) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || reflect.PointerTo(t).Implements(unmarshaler) {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
	case reflect.Slice, reflect.Array:
		var items []json.RawMessage
		if json.Unmarshal(data, &items) != nil {
			return nil
		}
		for i, it := range items {
			if err := checkNames(it, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	default:
		return nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil {
		return nil // not an object: the decoder has said so, or null
	}
	fields := map[string]reflect.Type{}
	collectFields(t, fields)
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ft, ok := fields[k]
		if !ok {
			msg := fmt.Sprintf("unknown field %q", k)
			for name := range fields {
				if strings.EqualFold(name, k) {
					msg += fmt.Sprintf(" (field names are case-sensitive: %q)", name)
				}
			}
			return &Error{Field: join(path, k), Msg: msg}
		}
		if err := checkNames(obj[k], ft, join(path, k)); err != nil {
			return err
		}
	}
	return nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// collectFields maps each JSON name of t's fields to its type, with the
// fields of embedded structs promoted as encoding/json does.
func collectFields(t reflect.Type, into map[string]reflect.Type) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				collectFields(et, into)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, seen := into[name]; !seen {
			into[name] = f.Type
		}
	}
}

// Is reports whether err is (or wraps) a strictjson refusal, and returns it.
func Is(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}
