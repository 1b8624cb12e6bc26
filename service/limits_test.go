package service_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/notesoup/notesoup/harness/builtins"
	"github.com/notesoup/notesoup/service"
	"github.com/notesoup/notesoup/shared/reset"
)

// TestLimitsMargins: the margins come from the notesoup object of the
// settings the harness read — its own settings files when the caller passed
// none — else from the caller's settings, for every front end alike.
func TestLimitsMargins(t *testing.T) {
	root := t.TempDir()
	cwd := filepath.Join(root, "proj")
	for path, text := range map[string]string{
		filepath.Join(root, ".pi", "agent", "settings.json"): `{"notesoup":{"resetMarginTokens":1000}}`,
		filepath.Join(cwd, ".pi", "settings.json"):           `{"notesoup":{"warningRunwayTokens":2000}}`,
		filepath.Join(root, ".claude", "settings.json"):      `{"notesoup":{"resetMarginTokens":3000}}`,
		filepath.Join(cwd, ".claude", "settings.local.json"): `{"notesoup":{"warningRunwayTokens":4000}}`,
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := service.New(&builtins.Local{}, service.WithHome(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	const callerSettings = `{"notesoup":{"resetMarginTokens":5000,"warningRunwayTokens":6000}}`
	tests := []struct {
		name, harness, settings string
		reset, runway           int64
	}{
		{"pi: its merged settings files", "pi", "", 1000, 2000},
		{"pi: the caller's settings replace the files", "pi", callerSettings, 5000, 6000},
		{"claude: its merged settings files", "claude", "", 3000, 4000},
		{"claude: the caller's settings replace the files", "claude", callerSettings, 5000, 6000},
		{"codex: no JSON settings, the caller's count", "codex", callerSettings, 5000, 6000},
		{"codex: defaults without any", "codex", "", reset.DefaultResetMarginTokens, reset.DefaultWarningRunwayTokens},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := reset.ThresholdInput{ModelWindow: 200_000, Home: root, Cwd: cwd, Settings: []byte(tc.settings),
				Env: map[string]string{"CODEX_HOME": filepath.Join(root, ".codex")}}
			res, err := s.Limits(context.Background(), tc.harness, service.LimitsRequest{ThresholdInput: in})
			if err != nil {
				t.Fatal(err)
			}
			if m := res.Margins; m.ResetMargin != tc.reset || m.WarningRunway != tc.runway {
				t.Errorf("margins %+v, want reset %d, runway %d", m, tc.reset, tc.runway)
			}
			if res.Resolved && res.Hard != res.Native.Tokens-tc.reset {
				t.Errorf("hard %d, want native %d − reset margin %d", res.Hard, res.Native.Tokens, tc.reset)
			}
		})
	}
}
