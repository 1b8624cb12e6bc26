package main

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/notesoup/notesoup/contract"
)

func TestListSessions(t *testing.T) {
	isolate(t)
	root, db := fixture(t, "subagent")
	all := list(t, root, contract.SessionFilter{})
	if len(all) != 2 {
		t.Fatalf("sessions %+v, want the parent and its subagent's", all)
	}
	parent, child := all[0], all[1]
	for _, s := range all {
		if s.Harness != Name || s.Path != db || s.Cwd != "/tmp/notesoup-record/opencode-subagent/work" || s.Size == 0 ||
			s.Started.IsZero() || s.Updated.Before(s.Started) {
			t.Errorf("session %+v: want harness, path, cwd, size and times", s)
		}
	}
	if parent.Title != "Subagent reads the note" || child.Title != "Read the note (@general subagent)" {
		t.Errorf("titles %q, %q", parent.Title, child.Title)
	}
	tests := []struct {
		name string
		f    contract.SessionFilter
		want []string
	}{
		{"an id prefix narrows", contract.SessionFilter{IDPrefix: child.ID[:len(child.ID)-3]}, []string{child.ID}},
		{"a prefix nothing has", contract.SessionFilter{IDPrefix: "ses_nothing"}, nil},
		{"files only names id and path", contract.SessionFilter{FilesOnly: true}, []string{parent.ID, child.ID}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := list(t, root, tc.f)
			var ids []string
			for _, s := range got {
				ids = append(ids, s.ID)
				if s.Path != db {
					t.Errorf("path %q, want %q", s.Path, db)
				}
			}
			slices.Sort(ids)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !slices.Equal(ids, want) {
				t.Errorf("ids %v, want %v", ids, want)
			}
		})
	}
}

func TestDefaultRootsAndDescribe(t *testing.T) {
	home := isolate(t)
	tests := []struct {
		name, dataHome, db string
		want               []string
	}{
		{"XDG_DATA_HOME", filepath.Join(home, "xdg"), "", []string{filepath.Join(home, "xdg", "opencode")}},
		{"the default under HOME", "", "", []string{filepath.Join(home, ".local", "share", "opencode")}},
		{"a relative XDG_DATA_HOME is ignored", "rel", "", []string{filepath.Join(home, ".local", "share", "opencode")}},
		{"OPENCODE_DB elsewhere adds its directory", "", "/srv/oc/mine.db", []string{filepath.Join(home, ".local", "share", "opencode"), "/srv/oc"}},
		{"OPENCODE_DB relative is inside the data directory", "", "other.db", []string{filepath.Join(home, ".local", "share", "opencode")}},
		{"OPENCODE_DB in memory adds nothing", "", ":memory:", []string{filepath.Join(home, ".local", "share", "opencode")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(dataHomeEnv, tc.dataHome)
			t.Setenv(dbEnv, tc.db)
			d, err := Harness{}.Describe(context.Background())
			if err != nil || d.Name != Name || !slices.Equal(d.DefaultRoots, tc.want) {
				t.Errorf("describe %+v, %v; want roots %v", d, err, tc.want)
			}
			for _, c := range []string{contract.CapSessions, contract.CapDecode, contract.CapBoot, contract.CapForks, contract.CapThresholds} {
				if !slices.Contains(d.Capabilities, c) {
					t.Errorf("capabilities %v lack %s", d.Capabilities, c)
				}
			}
			// Text in SQLite pages is not promised to be in the file's bytes.
			if slices.Contains(d.Capabilities, contract.CapRawSearch) {
				t.Errorf("capabilities %v promise raw_search", d.Capabilities)
			}
		})
	}
}

func TestDBNames(t *testing.T) {
	for name, want := range map[string]bool{
		"opencode.db": true, "opencode-dev.db": true, "opencode-v1.2_x.db": true,
		"opencode.db-wal": false, "opencode-.db": false, "opencode-a/b.db": false, "other.db": false, "opencode": false,
	} {
		if got := isDBName(name); got != want {
			t.Errorf("isDBName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"  a\n\tb  ":                     "a b",
		"x\u200by":                       "x y",
		"é" + string([]byte{0xff}) + "z": "é z",
		"\x1b[31mred":                    "[31mred",
	} {
		if got := oneLine(in, 100); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
		}
	}
	if got := oneLine("ééé", 5); got != "éé" {
		t.Errorf("cut %q, want on a rune boundary", got)
	}
}

func TestBootBinding(t *testing.T) {
	b, err := Harness{}.BootBinding(context.Background(), "ses_1", 2)
	if err != nil || b.WindowID != "opencode:ses_1:2" || b.ResetTool != "" {
		t.Errorf("binding %+v, %v", b, err)
	}
	if _, err := (Harness{}).BootBinding(context.Background(), "../x", 1); err == nil {
		t.Error("a bad id was bound")
	}
	p, err := Harness{}.Thresholds(context.Background(), contract.ThresholdInput{Home: t.TempDir(), Cwd: t.TempDir()})
	if err != nil || p.Resolved || p.Reason == "" {
		t.Errorf("thresholds %+v, %v; want unresolved with a reason", p, err)
	}
}
