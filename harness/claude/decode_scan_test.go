package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

var scanSeeds = []string{
	`{"a":1}`, `{"a":"x\"y","b":[1,2,{"c":null}]}`, `[]`, `{}`, ` {"a" : true , "b":false} `,
	`{"a":-0.5e+10}`, `{"a":01}`, `{"a":1.}`, `{"a":"\u00e9\ud83d\ude00\ud800x"}`, `{"a":"\x"}`,
	`{"a":"tab	in"}`, `{"a":1,}`, `{"a" 1}`, `{"a":[1 2]}`, `"\\\\"`, `{"a":"\\\\\""}`, `nul`, `{"a":1}x`,
	`{"a":"` + "\u2028" + `"}`, `-`, `{"a":-}`, `1e5`, `{"a":"\uZZZZ"}`, `[[[[]]]]`,
	// Regressions found by fuzzing: invalid UTF-8 in a key, a number no
	// float64 holds.
	"{\"\xcf\":\"\"}", `1E1000`,
}

// FuzzValidate checks the scanner against encoding/json: the same inputs are
// valid, and every string decodes to the same value.
func FuzzValidate(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkAgainstStdlib(t, b)
	})
}

func TestValidateMatchesStdlib(t *testing.T) {
	for _, s := range scanSeeds {
		checkAgainstStdlib(t, []byte(s))
	}
}

func checkAgainstStdlib(t *testing.T, b []byte) {
	t.Helper()
	got := validate(b) == nil
	if want := json.Valid(b); got != want {
		t.Fatalf("validate(%q) = %v, json.Valid = %v", b, got, want)
	}
	// validateMembers agrees, and hands out the same members as members.
	var viaValidate, viaWalk [][2]string
	if (validateMembers(b, func(k, v []byte) { viaValidate = append(viaValidate, [2]string{string(k), string(v)}) }) == nil) != got {
		t.Fatalf("validateMembers(%q) disagrees with validate", b)
	}
	if got {
		members(b, func(k, v []byte) { viaWalk = append(viaWalk, [2]string{string(k), string(v)}) })
		if fmt.Sprint(viaValidate) != fmt.Sprint(viaWalk) {
			t.Fatalf("members of %q: validateMembers %q, members %q", b, viaValidate, viaWalk)
		}
	}
	if !got {
		// The walkers must not panic on invalid bytes either.
		members(b, func(k, v []byte) { str(v) })
		elements(b, func(v []byte) { str(v) })
		return
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // 1e1000 is valid JSON but no float64
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	compare(t, b, v)
}

// compare walks raw with the scanner and the stdlib's decoded value side by
// side.
func compare(t *testing.T, raw []byte, v any) {
	t.Helper()
	switch want := v.(type) {
	case string:
		got, ok := str(trim(raw))
		if !ok || got != want {
			t.Fatalf("str(%q) = %q, %v; want %q", raw, got, ok, want)
		}
	case map[string]any:
		seen := map[string][]byte{}
		members(raw, func(k, val []byte) {
			key, _ := str(append(append([]byte{'"'}, k...), '"'))
			seen[key] = val // the last duplicate wins, as in encoding/json
		})
		for k, wv := range want {
			rv, ok := seen[k]
			if !ok {
				t.Fatalf("member %q of %q not walked", k, raw)
			}
			compare(t, rv, wv)
		}
	case []any:
		var els [][]byte
		elements(raw, func(val []byte) { els = append(els, val) })
		if len(els) != len(want) {
			t.Fatalf("elements(%q) = %d, want %d", raw, len(els), len(want))
		}
		for i := range els {
			compare(t, els[i], want[i])
		}
	}
}

func trim(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && isSpace(b[i]) {
		i++
	}
	for j > i && isSpace(b[j-1]) {
		j--
	}
	return b[i:j]
}

// TestHasBootProbe: the anchored search finds the probe exactly where
// bytes.Contains does: at either end, after near misses, never in part.
func TestHasBootProbe(t *testing.T) {
	for _, s := range []string{
		"", "b", "notesoup-boot", "xnotesoup-boot", "notesoup-bootx", `{"a":"\nnotesoup-boo\nnotesoup-boot"}`,
		"notesoup-bo", "otesoup-boot", "notesoupboot", "bbbbbbbbbbbbbbnotesoup-b", "nnnnotesoup-notesoup-boot", "bnotesoup-boot",
	} {
		if got, want := hasBootProbe([]byte(s)), bytes.Contains([]byte(s), bootProbe); got != want {
			t.Errorf("hasBootProbe(%q) = %v, want %v", s, got, want)
		}
	}
}
