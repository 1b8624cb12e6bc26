package pi

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestDefaultRoots(t *testing.T) {
	home := t.TempDir()
	custom := t.TempDir()
	withSettings := func(body string) string {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, settingsFile), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	absSettings := withSettings(`{"sessionDir":"/srv/pi-sessions","compaction":{"enabled":true}}`)
	relSettings := withSettings(`{"sessionDir":"mine"}`)
	tildeSettings := withSettings(`{"sessionDir":"~/pi-sessions"}`)
	emptySettings := withSettings(`{"sessionDir":""}`)
	badSettings := withSettings(`{"sessionDir":`)
	tests := []struct {
		name    string
		env     map[string]string
		noHome  bool
		want    []string
		wantErr string
	}{
		{name: "default", want: []string{filepath.Join(home, ".pi", "agent", "sessions")}},
		{name: "agent dir", env: map[string]string{envAgentDir: custom}, want: []string{filepath.Join(custom, "sessions")}},
		{name: "agent dir with tilde", env: map[string]string{envAgentDir: "~/alt"}, want: []string{filepath.Join(home, "alt", "sessions")}},
		{name: "session dir env", env: map[string]string{envAgentDir: custom, envSessionDir: "/flat"},
			want: []string{"/flat", filepath.Join(custom, "sessions")}},
		{name: "settings absolute", env: map[string]string{envAgentDir: absSettings},
			want: []string{"/srv/pi-sessions", filepath.Join(absSettings, "sessions")}},
		{name: "settings relative", env: map[string]string{envAgentDir: relSettings},
			want: []string{filepath.Join(relSettings, "mine"), filepath.Join(relSettings, "sessions")}},
		{name: "settings tilde", env: map[string]string{envAgentDir: tildeSettings},
			want: []string{filepath.Join(home, "pi-sessions"), filepath.Join(tildeSettings, "sessions")}},
		{name: "settings empty", env: map[string]string{envAgentDir: emptySettings}, want: []string{filepath.Join(emptySettings, "sessions")}},
		{name: "env beats settings, both kept", env: map[string]string{envAgentDir: absSettings, envSessionDir: "/flat"},
			want: []string{"/flat", "/srv/pi-sessions", filepath.Join(absSettings, "sessions")}},
		{name: "duplicates folded", env: map[string]string{envAgentDir: custom, envSessionDir: filepath.Join(custom, "sessions") + "/"},
			want: []string{filepath.Join(custom, "sessions")}},
		{name: "invalid settings", env: map[string]string{envAgentDir: badSettings}, wantErr: "not valid JSON"},
		{name: "no home", noHome: true, wantErr: envAgentDir},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) string { return tc.env[k] }
			homeFn := func() (string, error) {
				if tc.noHome {
					return "", errors.New("no HOME")
				}
				return home, nil
			}
			got, err := defaultRoots(getenv, homeFn)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("roots = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestDefaultRootsFromEnvironment checks the exported entry point reads the
// real environment.
func TestDefaultRootsFromEnvironment(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(envAgentDir, dir)
	t.Setenv(envSessionDir, "")
	got, err := DefaultRoots()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "sessions")}; !reflect.DeepEqual(got, want) {
		t.Errorf("DefaultRoots = %v, want %v", got, want)
	}
	if d, _ := AgentDir(); d != dir {
		t.Errorf("AgentDir = %s, want %s", d, dir)
	}
}
