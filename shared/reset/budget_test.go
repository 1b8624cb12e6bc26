package reset

import (
	"errors"
	"strings"
	"testing"
)

func TestParseCap(t *testing.T) {
	cases := []struct {
		in      string
		want    int64
		wantErr string
	}{
		{"100k", 100_000, ""},
		{"100K", 100_000, ""},
		{"1.5m", 1_500_000, ""},
		{" 1.5M ", 1_500_000, ""},
		{"120000", 120_000, ""},
		{"0.5k", 500, ""},
		{".5k", 500, ""},
		{"1.25k", 1_250, ""},
		{"1m", 1_000_000, ""},
		{"1000m", 1_000_000_000, ""},
		{"off", 0, ""},
		{"OFF", 0, ""},
		{"1.2345k", 0, "not a whole number"},
		{"1.5", 0, "must be whole"},
		{"", 0, "empty"},
		{"k", 0, "not a number"},
		{"5.", 0, "not a number"},
		{"-5k", 0, "not a number"},
		{"1e5", 0, "not a number"},
		{"10 k", 0, "not a number"},
		{"0", 0, "more than zero"},
		{"0k", 0, "more than zero"},
		{"1001m", 0, "too large"},
		{"99999999999999999999999999999k", 0, "too large"},
		{"1,000", 0, "not a number"},
		{"1.5g", 0, "not a number"},
	}
	for _, c := range cases {
		got, err := ParseCap(c.in)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("ParseCap(%q) = %d, %v; want error containing %q", c.in, got, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseCap(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
}

func TestFormatTokensRoundTrips(t *testing.T) {
	for _, n := range []int64{1, 999, 1000, 1500, 12345, 100_000, 1_500_000, 1_000_000, 2_345_678} {
		s := FormatTokens(n)
		back, err := ParseCap(s)
		if err != nil || back != n {
			t.Errorf("FormatTokens(%d) = %q parses back to %d, %v", n, s, back, err)
		}
	}
}

func TestMarginsFromSettings(t *testing.T) {
	cases := []struct {
		name          string
		settings      string
		reset, runway int64
		notes         int
	}{
		{"empty", ``, 8192, 16384, 0},
		{"no notesoup object", `{"model":"x"}`, 8192, 16384, 0},
		{"both set", `{"notesoup":{"resetMarginTokens":4000,"warningRunwayTokens":10000}}`, 4000, 10000, 0},
		{"zero allowed", `{"notesoup":{"resetMarginTokens":0}}`, 0, 16384, 0},
		{"string ignored", `{"notesoup":{"resetMarginTokens":"4000"}}`, 8192, 16384, 1},
		{"negative ignored", `{"notesoup":{"warningRunwayTokens":-1}}`, 8192, 16384, 1},
		{"fraction ignored", `{"notesoup":{"warningRunwayTokens":1.5}}`, 8192, 16384, 1},
		{"other keys ignored", `{"notesoup":{"other":1,"resetMarginTokens":100}}`, 100, 16384, 0},
		{"notesoup not an object", `{"notesoup":5}`, 8192, 16384, 1},
		{"invalid JSON", `{`, 8192, 16384, 1},
		{"top-level margins are not read", `{"resetMarginTokens":1}`, 8192, 16384, 0},
	}
	for _, c := range cases {
		m := MarginsFromSettings([]byte(c.settings))
		if m.ResetMargin != c.reset || m.WarningRunway != c.runway || len(m.Notes) != c.notes {
			t.Errorf("%s: got %+v, want reset %d runway %d and %d notes", c.name, m, c.reset, c.runway, c.notes)
		}
		// A harness reports PolicySettings of what it parsed: the margins
		// read from them are the same, and nothing else travels.
		parsed, err := ParseJSONObject([]byte(c.settings))
		if err != nil {
			continue
		}
		ps := PolicySettings(parsed)
		if pm := MarginsFromSettings(ps); pm.ResetMargin != c.reset || pm.WarningRunway != c.runway || len(pm.Notes) != c.notes {
			t.Errorf("%s: margins from PolicySettings %s = %+v, want reset %d runway %d and %d notes", c.name, ps, pm, c.reset, c.runway, c.notes)
		}
		if back, _ := ParseJSONObject(ps); len(back) > 1 || (len(back) == 1 && back[SettingsKey] == nil) {
			t.Errorf("%s: PolicySettings = %s, want only the %s object", c.name, ps, SettingsKey)
		}
	}
}

func TestComputeLimits(t *testing.T) {
	p := NativePoint{Resolved: true, Tokens: 967_000, Window: 1_000_000, Source: "x", AutoCompactEnabled: true}
	l, err := ComputeLimits(p, DefaultMargins(), 0)
	if err != nil || !l.Resolved || l.Hard != 967_000-8192 || l.Warning != 967_000-8192-16384 || !l.AutoReset || !l.WarningsEnabled {
		t.Fatalf("limits %+v, %v", l, err)
	}
	if l.TokensLeft(l.Hard-10) != 10 || l.TokensLeft(l.Hard+10) != 0 {
		t.Fatalf("countdown wrong")
	}
	if !WarningDue(l, l.Warning, false) || WarningDue(l, l.Warning-1, false) || WarningDue(l, l.Warning, true) {
		t.Fatalf("WarningDue wrong")
	}
	if !HardDue(l, l.Hard) || HardDue(l, l.Hard-1) {
		t.Fatalf("HardDue wrong")
	}
	off := p
	off.AutoCompactEnabled = false
	l, _ = ComputeLimits(off, DefaultMargins(), 0)
	if l.AutoReset || !l.WarningsEnabled || HardDue(l, l.Hard) || !WarningDue(l, l.Warning, false) {
		t.Fatalf("auto-compaction off: %+v", l)
	}
	dis := p
	dis.CompactDisabled = true
	l, _ = ComputeLimits(dis, DefaultMargins(), 0)
	if l.AutoReset || l.WarningsEnabled || WarningDue(l, l.Warning, false) {
		t.Fatalf("compaction disabled: %+v", l)
	}
	small := NativePoint{Resolved: true, Tokens: 20_000, Window: 53_000, Source: "x"}
	l, err = ComputeLimits(small, DefaultMargins(), 0)
	if err != nil || l.Resolved || !strings.Contains(l.Reason, "no room") {
		t.Fatalf("too small without cap: %+v %v", l, err)
	}
	_, err = ComputeLimits(small, DefaultMargins(), 53_000)
	if !errors.Is(err, ErrCapTooSmall) {
		t.Fatalf("too small with cap: %v, want ErrCapTooSmall", err)
	}
	l, err = ComputeLimits(NativePoint{Reason: "no usage"}, DefaultMargins(), 0)
	if err != nil || l.Resolved || !strings.Contains(l.Reason, "no usage") {
		t.Fatalf("unresolved: %+v %v", l, err)
	}
	if _, err := ComputeLimits(NativePoint{Reason: "no usage"}, DefaultMargins(), 100_000); err == nil {
		t.Fatalf("a cap on an unresolved point must be refused")
	}
}

func TestClampWindow(t *testing.T) {
	cases := []struct{ window, cap, want int64 }{
		{200_000, 0, 200_000}, {200_000, 100_000, 100_000}, {200_000, 300_000, 200_000}, {0, 100_000, 100_000},
	}
	for _, c := range cases {
		got, applied := ClampWindow(c.window, c.cap)
		if got != c.want || applied != (c.want != c.window) {
			t.Errorf("ClampWindow(%d, %d) = %d, %v", c.window, c.cap, got, applied)
		}
	}
}

func TestPositiveTokensTypeChecks(t *testing.T) {
	obj, err := ParseJSONObject([]byte(`{"i":1e400}`))
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := PositiveTokens(obj["i"]); ok {
		t.Fatalf("1e400 accepted as %d tokens", n)
	}
	obj, _ = ParseJSONObject([]byte(`{"a":5,"b":"5","c":-1,"d":0,"e":1.9,"f":null,"g":true,"h":[1]}`))
	want := map[string]int64{"a": 5, "e": 1}
	for k, v := range obj {
		n, ok := PositiveTokens(v)
		if w, exp := want[k]; ok != exp || n != w {
			t.Errorf("PositiveTokens(%s=%v) = %d, %v", k, v, n, ok)
		}
	}
	if _, err := ParseJSONObject([]byte(`[1]`)); err == nil {
		t.Errorf("an array is not a settings object")
	}
}
