package codex

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/notesoup/notesoup/harness"
)

const testBin = "/opt/notesoup/bin/notesoup"

func TestMergeCodexConfig(t *testing.T) {
	ours := string(mustMerge(t, "", testBin))
	tests := []struct {
		name string
		old  string
		// err is a substring of the refusal, "" for success.
		err string
		// keep must survive byte for byte.
		keep []string
		// prompt is the compact_prompt expected afterwards.
		prompt string
		// same is true when the file must come back unchanged.
		same bool
		// msg is a substring one of the messages must hold.
		msg string
	}{
		{name: "no file", old: "", prompt: CompactPrompt},
		{name: "top-level keys and a provider table", old: "# mine\nmodel = \"m\"\n\n[model_providers.fake]\nname = \"F\" # keep me\n",
			keep: []string{"# mine\nmodel = \"m\"\n", "[model_providers.fake]\nname = \"F\" # keep me\n"}, prompt: CompactPrompt},
		{name: "no trailing newline", old: "model = \"m\"", keep: []string{"model = \"m\""}, prompt: CompactPrompt},
		{name: "array of tables first", old: "[[profiles_list]]\nx = 1\n", keep: []string{"[[profiles_list]]\nx = 1\n"}, prompt: CompactPrompt},
		{name: "own compact_prompt kept", old: "compact_prompt = \"mine\"\n", keep: []string{"compact_prompt = \"mine\"\n"}, prompt: "mine"},
		{name: "own prompt file kept", old: "experimental_compact_prompt_file = \"/p\"\n", keep: []string{"experimental_compact_prompt_file = \"/p\"\n"}},
		{name: "already installed", old: ours, same: true, prompt: CompactPrompt},
		{name: "another notesoup server refused", old: "[mcp_servers.notesoup]\ncommand = \"/elsewhere/notesoup\"\n", err: "refusing to overwrite"},
		// The README's tools-only route: `codex mcp add notesoup -- notesoup mcp --harness codex`.
		{name: "codex mcp add entry upgraded", old: "model = \"m\"\n\n[mcp_servers.notesoup]\ncommand = \"/usr/local/bin/notesoup\"\nargs = [\"mcp\", \"--harness\", \"codex\"]\n\n[mcp_servers.other]\ncommand = \"x\"\n",
			keep: []string{"model = \"m\"\n", "[mcp_servers.other]\ncommand = \"x\"\n"}, prompt: CompactPrompt, msg: "upgraded notesoup's own entry"},
		{name: "bare notesoup mcp upgraded", old: "[mcp_servers.notesoup]\ncommand = \"notesoup\"\nargs = [\"mcp\"]\n", prompt: CompactPrompt, msg: "upgraded"},
		{name: "an install with another binary upgraded", old: string(mustMerge(t, "", "/old/bin/notesoup-host")), prompt: CompactPrompt, msg: "upgraded"},
		{name: "a foreign command refused", old: "[mcp_servers.notesoup]\ncommand = \"/usr/bin/python3\"\nargs = [\"mcp\"]\n", err: "is not a notesoup binary"},
		{name: "other args refused", old: "[mcp_servers.notesoup]\ncommand = \"notesoup\"\nargs = [\"mcp\", \"--debug\"]\n", err: "which install would drop"},
		{name: "a person's env refused", old: "[mcp_servers.notesoup]\ncommand = \"notesoup\"\nargs = [\"mcp\"]\nenv = { A = \"b\" }\n", err: "it sets env"},
		{name: "other servers kept", old: "[mcp_servers.other]\ncommand = \"x\"\n", keep: []string{"[mcp_servers.other]\ncommand = \"x\"\n"}, prompt: CompactPrompt},
		{name: "invalid TOML refused", old: "model = \n", err: "not valid TOML"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, msgs, err := mergeConfig([]byte(tc.old), testBin)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(msgs) == 0 {
				t.Errorf("no message says what happened")
			}
			if tc.msg != "" && !strings.Contains(strings.Join(msgs, "\n"), tc.msg) {
				t.Errorf("messages %q lack %q", msgs, tc.msg)
			}
			if tc.same && string(got) != tc.old {
				t.Errorf("unchanged config rewritten:\n%s", got)
			}
			for _, k := range tc.keep {
				if !strings.Contains(string(got), k) {
					t.Errorf("lost %q:\n%s", k, got)
				}
			}
			var m map[string]any
			if _, err := toml.Decode(string(got), &m); err != nil {
				t.Fatalf("result does not parse: %v\n%s", err, got)
			}
			srv := m["mcp_servers"].(map[string]any)["notesoup"].(map[string]any)
			if srv["command"] != testBin {
				t.Errorf("command = %v", srv["command"])
			}
			tools := srv["tools"].(map[string]any)
			for _, tool := range writeTools {
				if tools[tool].(map[string]any)["approval_mode"] != "approve" {
					t.Errorf("%s not approved", tool)
				}
			}
			if p, _ := m["compact_prompt"].(string); p != tc.prompt {
				t.Errorf("compact_prompt = %.60q, want %.60q", p, tc.prompt)
			}
			// Merging again changes nothing.
			again, _, err := mergeConfig(got, testBin)
			if err != nil || string(again) != string(got) {
				t.Errorf("second merge changed the file (err %v)", err)
			}
		})
	}
}

func mustMerge(t *testing.T, old, bin string) []byte {
	t.Helper()
	b, _, err := mergeConfig([]byte(old), bin)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestMergeCodexHooks(t *testing.T) {
	other := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/x/stop.sh"}]}],` +
		`"PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"/x/lint.sh"}]}]}}`
	stale := `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"/old/notesoup hook codex SessionStart","timeout":30}]}]}}`
	tests := []struct {
		name     string
		old      string
		err      string
		keep     []string // commands that must remain
		messages []string
	}{
		{name: "no file", messages: []string{"SessionStart: added", "PostToolUse: added", "UserPromptSubmit: added"}},
		{name: "other hooks kept", old: other, keep: []string{"/x/stop.sh", "/x/lint.sh"}, messages: []string{"PostToolUse: added"}},
		{name: "stale notesoup path updated", old: stale, messages: []string{`updated notesoup's hook from "/old/notesoup hook codex SessionStart"`}},
		{name: "invalid JSON refused", old: "{", err: "not valid JSON"},
		{name: "hooks not an object refused", old: `{"hooks":[]}`, err: "not an object"},
		{name: "event not an array refused", old: `{"hooks":{"SessionStart":{}}}`, err: "not an array"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, msgs, err := mergeHooks([]byte(tc.old), testBin)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			all := strings.Join(msgs, "\n")
			for _, m := range tc.messages {
				if !strings.Contains(all, m) {
					t.Errorf("messages lack %q:\n%s", m, all)
				}
			}
			var doc struct {
				Hooks map[string][]struct {
					Matcher *string `json:"matcher"`
					Hooks   []struct {
						Command string `json:"command"`
					} `json:"hooks"`
				} `json:"hooks"`
			}
			if err := json.Unmarshal(got, &doc); err != nil {
				t.Fatal(err)
			}
			cmds := map[string]int{}
			for _, gs := range doc.Hooks {
				for _, g := range gs {
					for _, h := range g.Hooks {
						cmds[h.Command]++
					}
				}
			}
			for _, ev := range HookEvents {
				if n := cmds[hookCommand(testBin, ev)]; n != 1 {
					t.Errorf("%s: notesoup hook present %d times, want 1", ev, n)
				}
			}
			for _, k := range tc.keep {
				if cmds[k] != 1 {
					t.Errorf("lost hook %s", k)
				}
			}
			again, msgs, err := mergeHooks(got, testBin)
			if err != nil || string(again) != string(got) || len(msgs) != 0 {
				t.Errorf("second merge changed the file: %v %v", msgs, err)
			}
		})
	}
}

func TestReplaceIfUnchangedRefusesAConcurrentWrite(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte("a = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The caller read "a = 0" but the file now holds "a = 1": someone wrote it.
	err := replaceIfUnchanged(p, p, []byte("a = 0\n"), []byte("b = 2\n"))
	if err == nil || !strings.Contains(err.Error(), "changed while") {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "a = 1\n" {
		t.Errorf("file overwritten: %q", b)
	}
	if err := replaceIfUnchanged(p, p, []byte("a = 1\n"), []byte("b = 2\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "b = 2\n" {
		t.Errorf("file = %q", b)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(p), ".config.toml.notesoup-*"))
	if len(left) != 0 {
		t.Errorf("temp files left: %v", left)
	}
}

// installOnlyConfigs are config.toml texts a person may have before
// install: uninstall right after install must give each back byte for byte.
var installOnlyConfigs = []struct{ name, old string }{
	{"no file", ""},
	{"one key", "model = \"m\"\n"},
	{"no trailing newline", "model = \"m\""},
	{"comments, keys and a table", "# mine\nmodel = \"m\"\n\n[model_providers.fake]\nname = \"F\" # keep me\n"},
	{"comment over the first table", "model = \"m\"\n# about the providers\n[model_providers.x]\nname = \"X\"\n"},
	{"array of tables first", "[[profiles_list]]\nx = 1\n"},
	{"own compact_prompt", "compact_prompt = \"mine\"\n"},
	{"own prompt file", "experimental_compact_prompt_file = \"/p\"\n"},
	{"another server", "[mcp_servers.other]\ncommand = \"x\"\n"},
	{"an empty mcp_servers table", "[mcp_servers]\n"},
	{"blank lines only", "\n\n"},
	{"a comment without a newline", "# only a comment"},
	{"trailing blank lines", "model = \"m\"\n\n\n"},
}

func TestUninstallRestoresConfigByteForByte(t *testing.T) {
	for _, tc := range installOnlyConfigs {
		t.Run(tc.name, func(t *testing.T) {
			installed, _, err := mergeConfig([]byte(tc.old), testBin)
			if err != nil {
				t.Fatal(err)
			}
			if string(installed) == tc.old {
				t.Fatalf("install changed nothing, so this case tests nothing")
			}
			got, msgs, err := unmergeConfig(installed)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.old {
				t.Errorf("uninstall gave\n%q\nwant the original\n%q", got, tc.old)
			}
			if !strings.Contains(strings.Join(msgs, "\n"), "[mcp_servers.notesoup]: removed") {
				t.Errorf("messages do not say the server went: %v", msgs)
			}
			// Uninstalling again changes nothing.
			again, msgs, err := unmergeConfig(got)
			if err != nil || string(again) != tc.old || !strings.Contains(strings.Join(msgs, "\n"), "not installed") {
				t.Errorf("second uninstall: %q, %v, %v", again, msgs, err)
			}
		})
	}
}

// TestUninstallUndoesTheEarlierLayout: installs before this one put the
// prompt between the server table's comment and its header; uninstall
// still gives back the file as it was before that install.
func TestUninstallUndoesTheEarlierLayout(t *testing.T) {
	table := strings.TrimPrefix(serverTable(testBin), serverComment)
	for _, old := range []string{"", "model = \"m\"\n"} {
		sep := ""
		if old != "" {
			sep = "\n"
		}
		earlier := old + sep + serverComment + compactBlock() + "\n" + table
		got, _, err := unmergeConfig([]byte(earlier))
		if err != nil || string(got) != old {
			t.Errorf("%q: uninstall gave %q, %v; want %q", old, got, err, old)
		}
	}
}

func TestUninstallKeepsWhatThePersonWrote(t *testing.T) {
	const base = "# my settings\nmodel = \"m\"\n\n[model_providers.fake]\nname = \"F\" # keep me\n"
	tests := []struct {
		name string
		// edit changes the installed text as a person might.
		edit func(string) string
		// keep must be in the result; gone must not.
		keep, gone []string
		// prompt is compact_prompt afterwards ("" for none).
		prompt string
	}{
		{name: "a table appended after notesoup's",
			edit: func(s string) string { return s + "\n# fast profile\n[profiles.fast]\nmodel = \"f\"\n" },
			keep: []string{"# fast profile\n[profiles.fast]\nmodel = \"f\"\n", "# keep me"}},
		{name: "a key and comment added at the top",
			edit: func(s string) string { return "# effort\nmodel_reasoning_effort = \"high\"\n" + s },
			keep: []string{"# effort\nmodel_reasoning_effort = \"high\"\n", "# my settings"}},
		{name: "a key added inside notesoup's table",
			edit: func(s string) string {
				return strings.Replace(s, "args = [\"mcp\"", "startup_timeout_sec = 20\nargs = [\"mcp\"", 1)
			},
			keep: []string{"# keep me"}, gone: []string{"startup_timeout_sec", "approval_mode"}},
		{name: "notesoup's comments deleted",
			edit: func(s string) string {
				return strings.ReplaceAll(strings.ReplaceAll(s, serverComment, ""), compactComment, "")
			},
			keep: []string{"# my settings"}},
		{name: "the prompt made their own",
			edit: func(s string) string {
				return strings.Replace(s, compactLine(), "compact_prompt = \"summarise tersely\"\n", 1)
			},
			keep: []string{"compact_prompt = \"summarise tersely\"\n"}, prompt: "summarise tersely"},
		{name: "another server added between",
			edit: func(s string) string {
				return strings.Replace(s, serverComment, "[mcp_servers.docs]\ncommand = \"docs-mcp\"\n\n"+serverComment, 1)
			},
			keep: []string{"[mcp_servers.docs]\ncommand = \"docs-mcp\"\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			installed, _, err := mergeConfig([]byte(base), testBin)
			if err != nil {
				t.Fatal(err)
			}
			edited := tc.edit(string(installed))
			if edited == string(installed) {
				t.Fatal("the edit changed nothing")
			}
			before, err := decodeTOML([]byte(edited))
			if err != nil {
				t.Fatalf("the edited config does not parse: %v\n%s", err, edited)
			}
			got, _, err := unmergeConfig([]byte(edited))
			if err != nil {
				t.Fatal(err)
			}
			after, err := decodeTOML(got)
			if err != nil {
				t.Fatalf("result does not parse: %v\n%s", err, got)
			}
			if ourServer(after) != nil {
				t.Errorf("notesoup's server is still there:\n%s", got)
			}
			if p, _ := after["compact_prompt"].(string); p != tc.prompt {
				t.Errorf("compact_prompt = %.40q, want %q", p, tc.prompt)
			}
			// Everything else the person had is there, unchanged.
			if want := without(before, true, tc.prompt == ""); !sameJSON(after, want) {
				t.Errorf("settings changed:\n got %v\nwant %v", after, want)
			}
			for _, k := range append(tc.keep, "# my settings\nmodel = \"m\"\n", "[model_providers.fake]\nname = \"F\" # keep me\n") {
				if !strings.Contains(string(got), k) {
					t.Errorf("lost %q:\n%s", k, got)
				}
			}
			for _, g := range append(tc.gone, "notesoup install codex", "[mcp_servers.notesoup") {
				if strings.Contains(string(got), g) {
					t.Errorf("left %q:\n%s", g, got)
				}
			}
		})
	}
}

func TestUninstallRefusals(t *testing.T) {
	tests := []struct{ name, old, err string }{
		{"invalid TOML", "model = \n", "not valid TOML"},
		{"server as an inline table", "mcp_servers = { notesoup = { command = \"n\", args = [\"mcp\"] } }\n", "remove [mcp_servers.notesoup]"},
		{"prompt in another form", "compact_prompt = '''" + CompactPrompt + "'''\n", "another form"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := unmergeConfig([]byte(tc.old)); err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("err = %v, want one containing %q", err, tc.err)
			}
		})
	}
	// A notesoup table that does not run notesoup mcp is a person's own.
	own := "[mcp_servers.notesoup]\ncommand = \"/opt/other\"\nargs = [\"serve\"]\n"
	got, msgs, err := unmergeConfig([]byte(own))
	if err != nil || string(got) != own || !strings.Contains(strings.Join(msgs, "\n"), "kept") {
		t.Errorf("own notesoup table: %q, %v, %v", got, msgs, err)
	}
}

func TestUnmergeHooks(t *testing.T) {
	other := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/x/stop.sh"}]}],` +
		`"PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"/x/lint.sh"}]}]},"version":1}`
	tests := []struct {
		name string
		old  string
		// shared puts a person's hook into the group install made.
		shared bool
		// want is the document after uninstall ("" for the file removed).
		want string
	}{
		{name: "install made the file", old: "", want: ""},
		{name: "other hooks and keys kept", old: other, want: other},
		{name: "a person's hook beside notesoup's in its group", old: "", shared: true,
			want: `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"/x/mine.sh"}]}]}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var old []byte
			if tc.old != "" {
				old = []byte(tc.old)
			}
			installed, _, err := mergeHooks(old, testBin)
			if err != nil {
				t.Fatal(err)
			}
			if tc.shared {
				var doc map[string]any
				json.Unmarshal(installed, &doc)
				g := doc["hooks"].(map[string]any)[SessionStart].([]any)[0].(map[string]any)
				g["hooks"] = append(g["hooks"].([]any), map[string]any{"type": "command", "command": "/x/mine.sh"})
				installed, _ = json.Marshal(doc)
			}
			got, msgs, err := unmergeHooks(installed)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(strings.Join(msgs, "\n"), "removed notesoup's hook"); n != len(HookEvents) {
				t.Errorf("%d events said removed, want %d: %v", n, len(HookEvents), msgs)
			}
			if tc.want == "" {
				if got != nil {
					t.Errorf("want the file removed, got %s", got)
				}
				return
			}
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("%v: %s", err, got)
			}
			json.Unmarshal([]byte(tc.want), &w)
			if !sameJSON(g, w) {
				t.Errorf("got %s\nwant %s", got, tc.want)
			}
			again, msgs, err := unmergeHooks(got)
			if err != nil || string(again) != string(got) || !strings.Contains(strings.Join(msgs, ""), "no notesoup hooks") {
				t.Errorf("second uninstall changed the file: %v %v", msgs, err)
			}
		})
	}
	if _, _, err := unmergeHooks([]byte("{")); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Errorf("invalid JSON: err = %v", err)
	}
}

// TestInstallThenUninstall runs both over a Codex home: files install
// created are removed again, a file that was there comes back, and a dry
// run writes nothing.
func TestInstallThenUninstall(t *testing.T) {
	const cfg = "# mine\nmodel = \"m\"\n"
	for _, withConfig := range []bool{false, true} {
		home := t.TempDir()
		cfgPath := filepath.Join(home, configFile)
		if withConfig {
			if err := os.WriteFile(cfgPath, []byte(cfg), 0o640); err != nil {
				t.Fatal(err)
			}
		}
		req := harness.InstallRequest{Home: home, Binary: testBin}
		// config.toml, hooks.json and the three skill files.
		if rep, err := Install(req); err != nil || len(rep.Changed) != 2+len(skillPaths) {
			t.Fatalf("install: %+v, %v", rep, err)
		}
		installed, _ := os.ReadFile(cfgPath)
		dry := req
		dry.DryRun = true
		rep, err := Uninstall(dry)
		if err != nil || len(rep.Changed) != 2+len(skillPaths) || len(rep.Preview) != 2+len(skillPaths) {
			t.Fatalf("dry run: %+v, %v", rep, err)
		}
		if now, _ := os.ReadFile(cfgPath); string(now) != string(installed) {
			t.Errorf("dry run changed config.toml")
		}
		if !rep.Preview[1].Removed {
			t.Errorf("dry run does not say hooks.json would be removed: %+v", rep.Preview[1])
		}
		if _, err := Uninstall(req); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(cfgPath)
		switch {
		case withConfig && (err != nil || string(got) != cfg):
			t.Errorf("config.toml = %q, %v; want %q back", got, err, cfg)
		case !withConfig && !os.IsNotExist(err):
			t.Errorf("config.toml install created is still there: %q, %v", got, err)
		}
		if withConfig {
			if st, _ := os.Stat(cfgPath); st.Mode().Perm() != 0o640 {
				t.Errorf("config.toml mode = %v, want 0640 kept", st.Mode().Perm())
			}
		}
		if _, err := os.Stat(filepath.Join(home, hooksFile)); !os.IsNotExist(err) {
			t.Errorf("hooks.json install created is still there: %v", err)
		}
		// Nothing of notesoup's is left: no skill file, no folder it made.
		left, _ := os.ReadDir(home)
		if want := map[bool]int{false: 0, true: 1}[withConfig]; len(left) != want {
			t.Errorf("after uninstall the Codex home holds %v", left)
		}
		rep, err = Uninstall(req)
		if err != nil || len(rep.Changed) != 0 {
			t.Errorf("second uninstall: %+v, %v", rep, err)
		}
	}
}

func TestReadOptionalRefusesWhatIsNotAPlainFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.toml")
	os.WriteFile(target, []byte("a = 1\n"), 0o600)
	link := filepath.Join(dir, "config.toml")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.toml")
	os.WriteFile(big, make([]byte, maxConfigFile+1), 0o600)
	tests := []struct{ name, path, err string }{
		{"symbolic link", link, "not a regular file"},
		{"directory", dir, "not a regular file"},
		{"too large", big, "larger than"},
	}
	for _, tc := range tests {
		if _, err := readOptional(tc.path); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.err)
		}
	}
	if b, err := readOptional(filepath.Join(dir, "absent.toml")); b != nil || err != nil {
		t.Errorf("absent file: %q, %v", b, err)
	}
	if b, err := readOptional(target); string(b) != "a = 1\n" || err != nil {
		t.Errorf("plain file: %q, %v", b, err)
	}
}

// TestInstallWritesThroughLinks: a config.toml or hooks.json that is a
// symbolic link into a dotfiles folder used to be replaced by a plain file
// (or refused). Install and uninstall now write the file the link names,
// atomically in its own folder, and the link stays a link; uninstall
// brings the linked file back byte for byte, emptying it rather than
// removing it. A link to nothing is refused, naming it, and nothing is
// created.
func TestInstallWritesThroughLinks(t *testing.T) {
	tests := []struct {
		name, file, before string
	}{
		{"config.toml with the person's settings", configFile, "# mine\nmodel = \"m\"\n"},
		{"empty config.toml", configFile, ""},
		{"hooks.json with an empty object", hooksFile, "{}\n"},
		{"hooks.json with the person's hook", hooksFile, "{\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\n            \"command\": \"mine\",\n            \"type\": \"command\"\n          }\n        ]\n      }\n    ]\n  }\n}\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home, dots := t.TempDir(), t.TempDir()
			real := filepath.Join(dots, "codex-"+tc.file)
			if err := os.WriteFile(real, []byte(tc.before), 0o640); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(home, tc.file)
			rel, err := filepath.Rel(home, real)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(rel, link); err != nil { // relative, as dotfile managers make them
				t.Fatal(err)
			}
			stillLinked := func(when string) {
				t.Helper()
				if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
					t.Fatalf("after %s, %s is no longer a link (%v, %v)", when, link, fi.Mode(), err)
				}
				if dest, _ := os.Readlink(link); dest != rel {
					t.Fatalf("after %s, the link points at %q, want %q", when, dest, rel)
				}
				if left, _ := filepath.Glob(filepath.Join(dots, ".*notesoup-*")); len(left) != 0 {
					t.Fatalf("after %s, temp files left: %v", when, left)
				}
			}
			req := harness.InstallRequest{Home: home, Binary: testBin}
			rep, err := Install(req)
			if err != nil {
				t.Fatalf("install: %v", err)
			}
			stillLinked("install")
			got, _ := os.ReadFile(real)
			if !strings.Contains(string(got), "notesoup") {
				t.Errorf("the linked file did not get notesoup's settings:\n%s", got)
			}
			if st, _ := os.Stat(real); st.Mode().Perm() != 0o640 {
				t.Errorf("linked file mode = %v, want 0640 kept", st.Mode().Perm())
			}
			if !strings.Contains(strings.Join(rep.Messages, "\n"), "through the link, to "+real) {
				t.Errorf("install does not say it wrote through the link: %v", rep.Messages)
			}
			if _, err := Uninstall(req); err != nil {
				t.Fatalf("uninstall: %v", err)
			}
			stillLinked("uninstall")
			if got, err := os.ReadFile(real); err != nil || string(got) != tc.before {
				t.Errorf("after uninstall the linked file holds %q (%v), want it back as %q", got, err, tc.before)
			}
		})
	}
}

func TestInstallRefusesADanglingLink(t *testing.T) {
	home := t.TempDir()
	missing := filepath.Join(t.TempDir(), "not-yet.toml")
	link := filepath.Join(home, configFile)
	if err := os.Symlink(missing, link); err != nil {
		t.Fatal(err)
	}
	_, err := Install(harness.InstallRequest{Home: home, Binary: testBin})
	if err == nil || !strings.Contains(err.Error(), link) || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("err = %v, want a refusal naming %s and saying its file does not exist", err, link)
	}
	if _, err := os.Lstat(missing); !os.IsNotExist(err) {
		t.Errorf("install created the link's missing file: %v", err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", fi.Mode(), err)
	}
	if _, err := os.Lstat(filepath.Join(home, hooksFile)); !os.IsNotExist(err) {
		t.Errorf("hooks.json written although install was refused: %v", err)
	}
}
