package modelserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/notesoup/notesoup/shared/atomicfile"
)

// Harness names one of the real coding-agent CLIs the project records and
// tests against.
type Harness string

// The three harnesses, with the wire protocol each one speaks.
const (
	// Claude is Claude Code (Anthropic Messages).
	Claude Harness = "claude"
	// Pi is the Pi coding agent (OpenAI chat-completions via models.json).
	Pi Harness = "pi"
	// Codex is the Codex CLI (OpenAI Responses via config.toml).
	Codex Harness = "codex"
	// GeminiCLI is the Gemini CLI (the Gemini API via
	// GOOGLE_GEMINI_BASE_URL; see agents_gemini.go).
	GeminiCLI Harness = "gemini"
	// Copilot is the GitHub Copilot CLI (OpenAI chat-completions through
	// its COPILOT_PROVIDER_BASE_URL provider; see agents_copilot.go).
	Copilot Harness = "copilot"
)

// cliPaths are the installed CLIs relative to the repo root, as
// e2e/install.sh puts them. Claude Code is run as its native binary: its
// launcher package needs a postinstall step npm may skip.
var cliPaths = map[Harness]string{
	Claude: ".tools/npm/node_modules/@anthropic-ai/claude-code-linux-x64/claude",
	Pi:     ".tools/npm/node_modules/.bin/pi",
	Codex:  ".tools/npm/node_modules/.bin/codex",
	// GeminiCLI is its bundled gemini.js, which relaunches itself.
	GeminiCLI: ".tools/npm/node_modules/.bin/gemini",
	// Copilot is the native binary of its platform package; the npm
	// launcher only picks it.
	Copilot: ".tools/npm/node_modules/@github/copilot-linux-x64/copilot",
}

// CLIPath returns the installed CLI of harness h under repoRoot, or an
// error saying to run e2e/install.sh.
func CLIPath(repoRoot string, h Harness) (string, error) {
	rel, ok := cliPaths[h]
	if !ok {
		return "", fmt.Errorf("modelserver: unknown harness %q (want claude, pi, codex, gemini or copilot)", h)
	}
	p := filepath.Join(repoRoot, rel)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("modelserver: %s CLI not installed at %s; run e2e/install.sh", h, p)
	}
	return p, nil
}

// Workspace is an isolated place for real agent runs: Home is the HOME the
// CLI sees (its sessions land under it), Work the working directory (a git
// repository, as Codex insists on one), Tmp a private TMPDIR.
type Workspace struct {
	// Dir holds the rest.
	Dir string
	// Home is the CLI's HOME.
	Home string
	// Work is the CLI's working directory.
	Work string
	// Tmp is the CLI's TMPDIR (mode 0700).
	Tmp string
}

// NewWorkspace creates home/, work/ (git init) and tmp/ under dir.
func NewWorkspace(dir string) (*Workspace, error) {
	w := &Workspace{Dir: dir, Home: filepath.Join(dir, "home"), Work: filepath.Join(dir, "work"), Tmp: filepath.Join(dir, "tmp")}
	for _, d := range []string{w.Home, w.Work, w.Tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("modelserver: creating workspace: %w", err)
		}
	}
	if out, err := exec.Command("git", "-C", w.Work, "init", "-q").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("modelserver: git init %s: %v: %s", w.Work, err, out)
	}
	return w, nil
}

// AgentOptions adjusts how Command sets a harness up.
type AgentOptions struct {
	// Env adds NAME=value pairs to the emptied environment.
	Env []string
	// PiContextWindow is the fake model's context window in models.json
	// (default 32000, small enough to reach compaction thresholds).
	PiContextWindow int
	// PiSettings, when set, is written as ~/.pi/agent/settings.json.
	PiSettings string
	// CodexConfig is appended to config.toml (e.g. [mcp_servers.x] tables).
	CodexConfig string
	// GeminiSettings holds settings.json keys merged over the ones the
	// Gemini CLI needs to reach the server (e.g. {"model": {...}}).
	GeminiSettings map[string]any
}

// Fake credentials. Every harness insists on some key; these reach only the
// loopback server, which redacts them from its log.
const (
	fakeAnthropicKey = "sk-fake"
	fakePiKey        = "fake-key-literal"
	fakeCodexKey     = "sk-fake"
)

// Command returns the command running bin (harness h's CLI) with args in
// w.Work, with an environment emptied of everything but what the CLI needs,
// HOME=w.Home, UTC, and the model API pointed at serverURL. For Pi and
// Codex it first writes the provider configuration (models.json,
// config.toml) into w.Home. stdin is /dev/null: codex exec would otherwise
// wait for it.
func (w *Workspace) Command(ctx context.Context, h Harness, bin, serverURL string, opts AgentOptions, args ...string) (*exec.Cmd, error) {
	env := []string{
		"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + w.Home, "TMPDIR=" + w.Tmp, "TZ=UTC",
		"LANG=C.UTF-8", "SHELL=/bin/bash", "TERM=dumb", "NO_COLOR=1",
		// The notesoup integrations start a detached vault sync at session
		// start; one still writing under the workspace after the run would
		// race the test's cleanup. A test that wants it passes
		// NOTESOUP_VAULT_SYNC in opts.Env (later entries win).
		"NOTESOUP_VAULT_SYNC=off",
	}
	switch h {
	case Claude:
		env = append(env, "ANTHROPIC_API_KEY="+fakeAnthropicKey, "ANTHROPIC_BASE_URL="+serverURL, "IS_SANDBOX=1",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "CLAUDE_CODE_TMPDIR="+w.Tmp, "DISABLE_AUTOUPDATER=1")
	case Pi:
		if err := w.writePiConfig(serverURL, opts); err != nil {
			return nil, err
		}
		env = append(env, "PI_OFFLINE=1", "PI_TELEMETRY=0")
	case Codex:
		if err := w.writeCodexConfig(serverURL, opts.CodexConfig); err != nil {
			return nil, err
		}
		env = append(env, "CODEX_HOME="+filepath.Join(w.Home, ".codex"), "FAKE_API_KEY="+fakeCodexKey)
	case GeminiCLI:
		genv, err := w.geminiEnv(serverURL, opts.GeminiSettings)
		if err != nil {
			return nil, err
		}
		env = append(env, genv...)
	case Copilot:
		env = append(env, w.copilotEnv(serverURL)...)
	default:
		return nil, fmt.Errorf("modelserver: unknown harness %q", h)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = w.Work
	cmd.Env = append(env, opts.Env...)
	return cmd, nil
}

func (w *Workspace) writePiConfig(serverURL string, opts AgentOptions) error {
	window := opts.PiContextWindow
	if window == 0 {
		window = 32000
	}
	dir := filepath.Join(w.Home, ".pi", "agent")
	models := fmt.Sprintf(`{"providers":{"fake":{"baseUrl":%q,"api":"openai-completions","apiKey":%q,`+
		`"compat":{"supportsDeveloperRole":false,"supportsReasoningEffort":false},`+
		`"models":[{"id":%q,"name":"Fake Model","reasoning":false,"input":["text"],"contextWindow":%d,"maxTokens":4096}]}}}`+"\n",
		serverURL+"/v1", fakePiKey, DefaultModel, window)
	if err := writeFileAtomic(filepath.Join(dir, "models.json"), models); err != nil {
		return err
	}
	if opts.PiSettings != "" {
		return writeFileAtomic(filepath.Join(dir, "settings.json"), opts.PiSettings)
	}
	return nil
}

func (w *Workspace) writeCodexConfig(serverURL, extra string) error {
	cfg := fmt.Sprintf("model = %q\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"Fake loopback\"\n"+
		"base_url = %q\nwire_api = \"responses\"\nenv_key = \"FAKE_API_KEY\"\n", DefaultModel, serverURL+"/v1")
	if extra != "" {
		cfg += "\n" + extra + "\n"
	}
	return writeFileAtomic(filepath.Join(w.Home, ".codex", "config.toml"), cfg)
}

// SessionFiles lists, sorted, the session files harness h has written in
// the workspace: Claude's projects/*/*.jsonl (and subagent files), Pi's
// sessions/*/*.jsonl, Codex's sessions/YYYY/MM/DD/rollout-*.jsonl.
func (w *Workspace) SessionFiles(h Harness) ([]string, error) {
	var root string
	var keep func(path string) bool
	switch h {
	case Claude:
		root = filepath.Join(w.Home, ".claude", "projects")
		keep = func(p string) bool { return strings.HasSuffix(p, ".jsonl") }
	case Pi:
		root = filepath.Join(w.Home, ".pi", "agent", "sessions")
		keep = func(p string) bool { return strings.HasSuffix(p, ".jsonl") }
	case Codex:
		root = filepath.Join(w.Home, ".codex", "sessions")
		keep = func(p string) bool {
			return strings.HasPrefix(filepath.Base(p), "rollout-") && strings.HasSuffix(p, ".jsonl")
		}
	case GeminiCLI:
		root, keep = w.geminiSessions()
	case Copilot:
		root, keep = w.copilotSessions()
	default:
		return nil, fmt.Errorf("modelserver: unknown harness %q", h)
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && keep(p) {
			files = append(files, p)
		}
		return nil
	})
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("modelserver: listing %s sessions: %w", h, err)
	}
	sort.Strings(files)
	return files, nil
}

// writeFileAtomic writes data through shared/atomicfile, creating the
// folder first.
func writeFileAtomic(path, data string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("modelserver: writing %s: %w", path, err)
	}
	if err := atomicfile.Write(path, []byte(data), atomicfile.Options{}); err != nil {
		return fmt.Errorf("modelserver: writing %s: %w", path, err)
	}
	return nil
}
