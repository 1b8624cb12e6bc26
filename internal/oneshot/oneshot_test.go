package oneshot

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/contract"
	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/notesoup/notesoup/internal/handover"
)

// fakeHost stands for the plugin host: it answers every name with a
// marker harness and records what it was asked.
type fakeHost struct {
	names  []string
	asked  []string
	closed bool
}

// hostHarness is what fakeHost returns; the test tells it from a built-in.
type hostHarness struct {
	contract.Harness
	name string
}

func (f *fakeHost) Names() []string { return f.names }
func (f *fakeHost) Harness(_ context.Context, name string) (contract.Harness, error) {
	f.asked = append(f.asked, name)
	return hostHarness{name: name}, nil
}
func (f *fakeHost) Close() { f.closed = true }

// pluginDir makes a plugin directory holding external plugins of the given
// names (executables; discovery does not run them) and points the default
// plugin directories at it alone.
func pluginDir(t *testing.T, names ...string) {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, "notesoup-harness-"+n), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("NOTESOUP_PLUGIN_DIR", dir)
	t.Setenv("NOTESOUP_HOME", t.TempDir())
}

// stubExec records hand-overs instead of replacing the test process.
func stubExec(t *testing.T) *[][]string {
	t.Helper()
	var calls [][]string
	old := execFull
	execFull = func(path string, args []string) error {
		calls = append(calls, append([]string{filepath.Base(path)}, args...))
		return errors.New("stub: not replacing the test process")
	}
	t.Cleanup(func() { execFull = old })
	return &calls
}

// TestHarnessesRoute: a built-in is called in-process unless an external
// plugin provides its name; a plugin's harness (an override or a new name)
// goes through the host, or is refused by a build without one.
func TestHarnessesRoute(t *testing.T) {
	const local, host, refused = "in-process", "host", "refused"
	tests := []struct {
		name      string
		plugins   []string
		withHost  bool
		want      map[string]string // harness → how it is reached
		wantNames []string
		hostMade  bool
	}{
		{name: "no plugins, full build", withHost: true,
			want:      map[string]string{"claude": local, "pi": local, "codex": local},
			wantNames: builtins.Names()},
		{name: "no plugins, light build",
			want:      map[string]string{"claude": local, "pi": local, "codex": local},
			wantNames: builtins.Names()},
		{name: "override and a new harness, full build", plugins: []string{"pi", "jsonl"}, withHost: true, hostMade: true,
			want:      map[string]string{"claude": local, "pi": host, "codex": local, "jsonl": host},
			wantNames: []string{"from", "the", "host"}},
		{name: "override and a new harness, light build", plugins: []string{"pi", "jsonl"},
			want:      map[string]string{"claude": local, "pi": refused, "codex": local, "jsonl": refused},
			wantNames: builtins.Names()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pluginDir(t, tc.plugins...)
			fh := &fakeHost{names: []string{"from", "the", "host"}}
			var p Policy
			made := false
			if tc.withHost {
				p.NewHost = func() Host { made = true; return fh }
			}
			h := p.Harnesses()
			if made != tc.hostMade {
				t.Errorf("host started = %v, want %v (only when a plugin needs it)", made, tc.hostMade)
			}
			if got := h.Names(); !reflect.DeepEqual(got, tc.wantNames) {
				t.Errorf("Names() = %v, want %v", got, tc.wantNames)
			}
			for name, how := range tc.want {
				hz, err := h.Harness(context.Background(), name)
				got := ""
				switch {
				case errors.Is(err, ErrNoHost):
					got = refused
				case err != nil:
					t.Fatalf("Harness(%q): %v", name, err)
				default:
					if _, ok := hz.(*harness.Builtin); ok {
						got = local
					} else if hh, ok := hz.(hostHarness); ok && hh.name == name {
						got = host
					}
				}
				if got != how {
					t.Errorf("Harness(%q) reached %q, want %q", name, got, how)
				}
			}
			if _, err := h.Harness(context.Background(), "smoke-signals"); !errors.Is(err, builtins.ErrUnknownHarness) {
				t.Errorf("Harness(smoke-signals) error = %v, want builtins.ErrUnknownHarness", err)
			}
			h.Close()
			if fh.closed != tc.hostMade {
				t.Errorf("host closed = %v, want %v", fh.closed, tc.hostMade)
			}
		})
	}
}

// TestStartHandsOver: a build without the host hands the whole command to
// the full build as soon as any external plugin exists (one that adds a
// harness too: only the host can list and load it), and says what to
// install, naming no internal binary, when the full build is missing.
func TestStartHandsOver(t *testing.T) {
	args := []string{"helper", "--flag"}
	tests := []struct {
		name      string
		plugins   []string
		withHost  bool
		installed bool
		wantExec  bool
		wantErr   string // substring; "" = nil
	}{
		{name: "no plugin: answers itself"},
		{name: "full build: loads the plugin itself", plugins: []string{"pi"}, withHost: true},
		{name: "override: hands over", plugins: []string{"pi"}, installed: true, wantExec: true, wantErr: "could not start"},
		{name: "new harness: hands over", plugins: []string{"jsonl"}, installed: true, wantExec: true, wantErr: "could not start"},
		{name: "full build missing", plugins: []string{"pi"}, wantErr: "make build"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pluginDir(t, tc.plugins...)
			path := t.TempDir()
			t.Setenv("PATH", path)
			if tc.installed {
				if err := os.WriteFile(filepath.Join(path, handover.HostBinary), []byte("#!/bin/sh\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			calls := stubExec(t)
			var p Policy
			if tc.withHost {
				p.NewHost = func() Host { return &fakeHost{} }
			}
			err := p.Start(args)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("Start() = %v, want an error holding %q", err, tc.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), handover.HostBinary) {
				t.Errorf("the error names the internal binary: %v", err)
			}
			want := [][]string(nil)
			if tc.wantExec {
				want = [][]string{append([]string{handover.HostBinary}, args...)}
			}
			if !reflect.DeepEqual(*calls, want) {
				t.Errorf("hand-overs %q, want %q", *calls, want)
			}
		})
	}
}
