package tooldef

import (
	"reflect"
	"testing"
)

func TestObject(t *testing.T) {
	tests := []struct {
		name     string
		required []string
		wantReq  []string
		hasReq   bool
	}{
		{name: "required names listed", required: []string{"name", "seq"}, wantReq: []string{"name", "seq"}, hasReq: true},
		{name: "no required key when none", required: nil, wantReq: nil, hasReq: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Object(tc.required, map[string]any{"name": map[string]any{"type": "string"}})
			if s["type"] != "object" || s["additionalProperties"] != false {
				t.Fatalf("schema %v is not a closed object", s)
			}
			if _, ok := s["required"]; ok != tc.hasReq {
				t.Fatalf("required present = %v, want %v", ok, tc.hasReq)
			}
			if got := (Def{InputSchema: s}).Required(); !reflect.DeepEqual(got, tc.wantReq) {
				t.Fatalf("Required() = %v, want %v", got, tc.wantReq)
			}
		})
	}
}
