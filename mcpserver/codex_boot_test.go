package mcpserver_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/harness/codex"
	"github.com/notesoup/notesoup/internal/testbin"
)

// TestCodexInstructionsCarryABootOnlyWithoutHooks: one boot per window.
// With notesoup's Codex hooks installed and trusted the SessionStart hook
// brings the boot, so `notesoup mcp --harness codex` puts none in its
// instructions; without them the instructions carry the unbound boot and
// say that the hooks are not running.
func TestCodexInstructionsCarryABootOnlyWithoutHooks(t *testing.T) {
	bin, err := testbin.Notesoup()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		install bool
		want    []string
		wantNot []string
	}{
		{name: "hooks trusted", install: true,
			want: []string{"comes from notesoup's codex hooks"}, wantNot: []string{"<notesoup-boot"}},
		{name: "no hooks", install: false,
			want: []string{`<notesoup-boot window="codex:unbound:0">`, "codex hooks are not running", "notesoup install codex"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			codexHome := filepath.Join(home, ".codex")
			if err := os.MkdirAll(codexHome, 0o700); err != nil {
				t.Fatal(err)
			}
			if tc.install {
				if _, err := codex.Install(harness.InstallRequest{Home: codexHome, Binary: bin}); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(bin, "mcp", "--harness", "codex", "--cwd", home)
			cmd.Env = append(testbin.SampleEnv(home), "CODEX_HOME="+codexHome)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			sess, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			got := sess.InitializeResult().Instructions
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("instructions lack %q:\n%s", w, got)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(got, w) {
					t.Errorf("instructions hold %q:\n%s", w, got)
				}
			}
		})
	}
}
