package main

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/notesoup/notesoup/contract"
)

func TestDescribe(t *testing.T) {
	home := t.TempDir()
	t.Setenv(HomeEnv, home)
	d, err := Harness{}.Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != Name || !slices.Contains(d.ContractVersions, contract.Version) || d.PluginVersion == "" {
		t.Errorf("description %+v: want name %s speaking contract version %d", d, Name, contract.Version)
	}
	for _, c := range []string{contract.CapSessions, contract.CapDecode, contract.CapRawSearch, contract.CapBoot} {
		if !slices.Contains(d.Capabilities, c) {
			t.Errorf("capabilities %v lack %s", d.Capabilities, c)
		}
	}
	// Thresholds answers unresolved, and forks would make a search decode
	// every file: neither is promised.
	for _, c := range []string{contract.CapThresholds, contract.CapForks} {
		if slices.Contains(d.Capabilities, c) {
			t.Errorf("capabilities %v promise %s", d.Capabilities, c)
		}
	}
	if want := []string{filepath.Join(home, sessionsDir)}; !slices.Equal(d.DefaultRoots, want) {
		t.Errorf("default roots %v, want %v", d.DefaultRoots, want)
	}
}

func TestThresholdsUnresolved(t *testing.T) {
	p, err := Harness{}.Thresholds(context.Background(), contract.ThresholdInput{ModelWindow: 200000})
	if err != nil || p.Resolved || p.Tokens != 0 || p.Reason == "" {
		t.Errorf("point %+v, err %v; want unresolved with a reason", p, err)
	}
}

func TestBootBinding(t *testing.T) {
	tests := []struct {
		id      string
		ordinal int
		want    string // window id; "" wants an error
	}{
		{"s1", 1, "jsonl:s1:1"},
		{"2026-01-02_a.b", 0, "jsonl:2026-01-02_a.b:0"},
		{"../etc", 1, ""},
		{"", 1, ""},
		{"s1", -1, ""},
	}
	for _, tc := range tests {
		b, err := Harness{}.BootBinding(context.Background(), tc.id, tc.ordinal)
		if tc.want == "" {
			if err == nil {
				t.Errorf("BootBinding(%q, %d) = %+v, want an error", tc.id, tc.ordinal, b)
			}
			continue
		}
		if err != nil || b.WindowID != tc.want || b.ResetTool != "" {
			t.Errorf("BootBinding(%q, %d) = %+v, %v; want window %s and no reset tool", tc.id, tc.ordinal, b, err, tc.want)
		}
	}
}
