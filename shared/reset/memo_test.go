package reset

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestMemoReusesUntilInputsChange(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "settings.json")
	calls := 0
	m := NewMemo(func(in ThresholdInput) NativePoint {
		calls++
		w, _ := ClampWindow(in.ModelWindow, in.Cap)
		return NativePoint{Resolved: true, Tokens: w - 33_000, Window: w, Source: "test", AutoCompactEnabled: true, Files: []string{file}}
	})
	base := ThresholdInput{Model: "m", ModelWindow: 200_000,
		Usage: []byte(`{"context":{"tokens":1000,"percent":1,"window":200000,"breakdown":{"totalTokens":1000,"autoCompactThreshold":167000}}}`)}
	l1, err := m.Limits(base)
	if err != nil || l1.Native != 167_000 {
		t.Fatalf("%+v %v", l1, err)
	}
	// Fill alone: same limits, no new resolve.
	fill := base
	fill.Usage = []byte(`{"context":{"tokens":150000,"percent":75,"window":200000,"breakdown":{"totalTokens":150000,"autoCompactThreshold":167000}}}`)
	if l2, _ := m.Limits(fill); !reflect.DeepEqual(l2, l1) || calls != 1 {
		t.Fatalf("context fill re-resolved (%d calls)", calls)
	}
	steps := []struct {
		name   string
		mutate func(*ThresholdInput)
	}{
		{"model", func(in *ThresholdInput) { in.Model = "other" }},
		{"cap", func(in *ThresholdInput) { in.Cap = 100_000 }},
		{"settings", func(in *ThresholdInput) { in.Settings = []byte(`{"autoCompactWindow":150000}`) }},
		{"env", func(in *ThresholdInput) { in.Env = map[string]string{"DISABLE_AUTO_COMPACT": "1"} }},
		{"threshold input", func(in *ThresholdInput) {
			in.Usage = []byte(`{"context":{"window":200000,"breakdown":{"autoCompactThreshold":150000}}}`)
		}},
		{"overrides", func(in *ThresholdInput) { in.Overrides = []string{"-c", "x=1"} }},
	}
	for _, st := range steps {
		before := calls
		in := base
		st.mutate(&in)
		m.Limits(in)
		if calls != before+1 {
			t.Errorf("changing %s did not re-resolve", st.name)
		}
		m.Limits(in)
		if calls != before+1 {
			t.Errorf("unchanged %s re-resolved", st.name)
		}
	}
	// A consulted file appearing or changing invalidates.
	before := calls
	os.WriteFile(file, []byte(`{}`), 0o600)
	m.Limits(base)
	if calls != before+1 {
		t.Fatalf("a new settings file did not re-resolve")
	}
	os.WriteFile(file, []byte(`{"x":1}`), 0o600)
	os.Chtimes(file, time.Now().Add(time.Hour), time.Now().Add(time.Hour))
	m.Limits(base)
	if calls != before+2 {
		t.Fatalf("a changed settings file did not re-resolve")
	}
	// Margins come from the notesoup object of the settings.
	in := base
	in.Settings = []byte(`{"notesoup":{"resetMarginTokens":1000,"warningRunwayTokens":2000}}`)
	l, _ := m.Limits(in)
	if l.Hard != 166_000 || l.Warning != 164_000 {
		t.Fatalf("margins from settings not applied: %+v", l)
	}
}

func TestMemoCapTooSmallRefused(t *testing.T) {
	m := NewMemo(func(in ThresholdInput) NativePoint {
		w, applied := ClampWindow(200_000, in.Cap)
		return NativePoint{Resolved: true, Tokens: w - 33_000, Window: w, CapApplied: applied, Source: "t"}
	})
	if _, err := m.Limits(ThresholdInput{Cap: 50_000}); err == nil {
		t.Fatalf("a 50k cap leaves 17k before margins of 24.5k and must be refused")
	}
	l, err := m.Limits(ThresholdInput{Cap: 100_000})
	if err != nil || !l.CapApplied || l.Native != 67_000 || l.Cap != 100_000 {
		t.Fatalf("%+v %v", l, err)
	}
}

func BenchmarkMemoHit(b *testing.B) {
	m := NewMemo(func(in ThresholdInput) NativePoint {
		return NativePoint{Resolved: true, Tokens: 167_000, Window: 200_000, Source: "b"}
	})
	in := ThresholdInput{Model: "m", Usage: []byte(`{"context":{"tokens":1000,"window":200000,"breakdown":{"autoCompactThreshold":167000}}}`)}
	for b.Loop() {
		m.Limits(in)
	}
}

func BenchmarkStep(b *testing.B) {
	s, _ := Step(NewState("s", 1), Event{Kind: EvResetRequested})
	for b.Loop() {
		Step(s, Event{Kind: EvStep})
	}
}
