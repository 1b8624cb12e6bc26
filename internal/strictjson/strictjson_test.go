package strictjson

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

type inner struct {
	Cwd string `json:"cwd,omitempty"`
}

type embedded struct {
	Query string `json:"query,omitempty"`
}

type envelope struct {
	V      int             `json:"v"`
	Caller inner           `json:"caller"`
	Items  []inner         `json:"items,omitempty"`
	Args   json.RawMessage `json:"args,omitempty"`
	embedded
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantField string // "" with wantMsg "" means accepted
		wantMsg   string
	}{
		{name: "plain", in: `{"v":1,"caller":{"cwd":"/x"},"query":"q","args":{"Any":"\ud83d\ude00"}}`},
		{name: "surrogate pair accepted", in: `{"v":1,"query":"\ud83d\ude00 ok"}`},
		{name: "raw non-ASCII accepted", in: `{"v":1,"query":"héllo ✓"}`},
		{name: "case-insensitive top field", in: `{"V":1}`, wantField: "V", wantMsg: `case-sensitive: "v"`},
		{name: "case-insensitive nested field", in: `{"v":1,"caller":{"CWD":"/x"}}`, wantField: "caller.CWD", wantMsg: "case-sensitive"},
		{name: "case-insensitive embedded field", in: `{"v":1,"Query":"x"}`, wantField: "Query", wantMsg: "case-sensitive"},
		{name: "case-insensitive in a slice", in: `{"v":1,"items":[{"cwd":"a"},{"Cwd":"b"}]}`, wantField: "items[1].Cwd", wantMsg: "unknown field"},
		{name: "unknown nested field", in: `{"v":1,"caller":{"bogus":1}}`, wantField: "caller.bogus", wantMsg: "unknown field"},
		{name: "lone high surrogate", in: `{"v":1,"caller":{"cwd":"a\ud800b"}}`, wantField: "caller.cwd", wantMsg: "lone surrogate"},
		{name: "lone low surrogate", in: `{"v":1,"query":"\udc00"}`, wantField: "query", wantMsg: "lone surrogate"},
		{name: "high surrogate then non-low", in: `{"v":1,"query":"\ud800\u0041"}`, wantField: "query", wantMsg: "lone surrogate"},
		{name: "surrogate inside raw args", in: `{"v":1,"args":{"content":"\ud800"}}`, wantField: "args.content", wantMsg: "lone surrogate"},
		{name: "surrogate in an array", in: `{"v":1,"args":{"roles":["user","\udfff"]}}`, wantField: "args.roles[1]", wantMsg: "lone surrogate"},
		{name: "invalid UTF-8", in: "{\"v\":1,\"query\":\"a\xffb\"}", wantField: "query", wantMsg: "not valid UTF-8"},
		{name: "duplicate field", in: `{"v":1,"v":2}`, wantField: "v", wantMsg: "given twice"},
		{name: "trailing data", in: `{"v":1} {}`, wantMsg: "trailing data"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var e envelope
			err := Decode([]byte(tc.in), &e)
			if tc.wantField == "" && tc.wantMsg == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("err = %v (%T), want a *strictjson.Error", err, err)
			}
			if se.Field != tc.wantField || !strings.Contains(se.Msg, tc.wantMsg) {
				t.Fatalf("got field %q msg %q, want field %q msg containing %q", se.Field, se.Msg, tc.wantField, tc.wantMsg)
			}
		})
	}
}

func TestDecodeKeepsTypeErrors(t *testing.T) {
	var e envelope
	err := Decode([]byte(`{"v":"one"}`), &e)
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Field != "v" {
		t.Fatalf("err = %v, want a type error on v", err)
	}
}
