//go:build !light

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// isolate points everything the CLI and its plugins could touch at the
// test's own directories, never the real home.
func isolate(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("NOTESOUP_HOME", filepath.Join(home, ".notesoup"))
	t.Setenv("NOTESOUP_PLUGIN_DIR", "")
	t.Setenv("NOTESOUP_LOG", "")
	t.Setenv("NO_COLOR", "")
	return home
}

// everyCommand walks the visible command table: every path people type.
func everyCommand() []*command {
	var out []*command
	var walk func(c *command)
	walk = func(c *command) {
		out = append(out, c)
		for _, s := range c.subs {
			walk(s)
		}
	}
	for _, n := range visibleNames(nil) {
		walk(commands[n])
	}
	return out
}

// TestHelpEveryCommand: --help, -h and `notesoup help CMD` of every command
// exit 0 and print the same help on stdout, in one style: no raw "Usage of"
// from a flag package, no Go type names for flag values, every flag as it
// is typed; internal commands are not listed.
func TestHelpEveryCommand(t *testing.T) {
	isolate(t)
	typeName := regexp.MustCompile(`--[a-z-]+ (string|int|int64|bool|value|strings)\b|\[=true\|false\]`)
	for _, c := range everyCommand() {
		if c.flags == nil && len(c.subs) == 0 {
			// A command that parses its own flags has no help of the
			// table's style: every command people type is on the table.
			t.Errorf("%s is not on the command table (no flags, no subcommands): define its flags with registerCommand", c.path())
			continue
		}
		path := strings.Fields(c.path())
		t.Run(c.path(), func(t *testing.T) {
			want, errs, code := runCLI(t, append(append([]string{}, path...), "--help")...)
			if code != 0 || errs != "" {
				t.Fatalf("--help: exit %d, stderr %q", code, errs)
			}
			for _, alt := range [][]string{append(append([]string{}, path...), "-h"), append([]string{"help"}, path...)} {
				got, _, code := runCLI(t, alt...)
				if code != 0 || got != want {
					t.Errorf("%q: exit %d, differs from --help:\n%s", alt, code, got)
				}
			}
			if !strings.HasPrefix(want, "notesoup "+c.path()+": ") || !strings.Contains(want, "\nUsage:\n  notesoup "+c.path()) {
				t.Errorf("help does not start with the command and its usage:\n%s", want)
			}
			if strings.Contains(want, "Usage of") || typeName.MatchString(want) {
				t.Errorf("help has a raw flag-package line or a type name:\n%s", want)
			}
			if fs := c.flagSet(); fs != nil {
				fs.VisitAll(func(f *pflag.Flag) {
					name, _ := pflag.UnquoteUsage(f)
					typed := "--" + f.Name
					if f.NoOptDefVal == "" {
						typed += " " + name
						if name == "" || name != strings.ToUpper(name) {
							t.Errorf("--%s has no placeholder in capitals (back-quote one in its usage): %q", f.Name, name)
						}
					}
					if !strings.Contains(want, typed) {
						t.Errorf("help lacks %q", typed)
					}
				})
			}
		})
	}
	top, _, code := runCLI(t, "--help")
	if code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	for _, internal := range []string{"helper", "hook", pluginModeArg} {
		if strings.Contains(top, "  "+internal+" ") {
			t.Errorf("the help lists the internal command %s:\n%s", internal, top)
		}
	}
	for _, n := range []string{"search", "history", "notes", "completion", "version", "install", "uninstall", "doctor", "dream", "vault"} {
		if !strings.Contains(top, "  "+n+" ") {
			t.Errorf("the help lacks %s:\n%s", n, top)
		}
	}
}

// TestVersion: --version, -V and version print the same line; --json a
// version field.
func TestVersion(t *testing.T) {
	isolate(t)
	want, _, code := runCLI(t, "version")
	if code != 0 || !strings.HasPrefix(want, "notesoup ") {
		t.Fatalf("version: exit %d, %q", code, want)
	}
	for _, args := range [][]string{{"--version"}, {"-V"}} {
		if got, _, code := runCLI(t, args...); code != 0 || got != want {
			t.Errorf("%v: exit %d, %q, want %q", args, code, got, want)
		}
	}
	out, _, code := runCLI(t, "version", "--json")
	var b buildInfo
	if code != 0 || json.Unmarshal([]byte(out), &b) != nil || b.Version == "" || b.Go == "" {
		t.Errorf("version --json: exit %d, %s", code, out)
	}
}

// TestDidYouMean: a command, subcommand or flag within two edits gets a
// suggestion; a word far from every name gets none; all exit 2.
func TestDidYouMean(t *testing.T) {
	isolate(t)
	tests := []struct {
		args []string
		want string // in stderr; "" for no suggestion
	}{
		{[]string{"serch", "x"}, `did you mean "search"?`},
		{[]string{"hsitory"}, `did you mean "history"?`},    // a swap
		{[]string{"note", "list"}, `did you mean "notes"?`}, // a deletion
		{[]string{"history", "lsit"}, `did you mean "list"?`},
		{[]string{"notes", "reed", "a.md"}, `did you mean "read"?`},
		{[]string{"search", "x", "--limt", "1"}, `did you mean "--limit"?`},
		{[]string{"help", "serch"}, `did you mean "search"?`},
		{[]string{"completion", "zhs"}, `did you mean "zsh"?`},
		{[]string{"frobnicate"}, ""},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, errs, code := runCLI(t, tc.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if tc.want == "" && strings.Contains(errs, "did you mean") || !strings.Contains(errs, tc.want) {
				t.Errorf("stderr %q, want %q", errs, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"search", "search", 0}, {"serch", "search", 1}, {"hsitory", "history", 1}, {"histroy", "history", 1}, {"abc", "cba", 2}, {"plugins", "pl", 5}} {
		if d := editDistance(tc.a, tc.b); d != tc.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, d, tc.d)
		}
	}
}

// TestCompletionScripts: each shell's script is valid for that shell
// (bash -n, zsh -n, fish -n where installed), and all three are generated
// from the command table: every command, subcommand and flag is in each.
func TestCompletionScripts(t *testing.T) {
	isolate(t)
	var flags []string
	for _, c := range everyCommand() {
		if fs := c.flagSet(); fs != nil {
			fs.VisitAll(func(f *pflag.Flag) { flags = append(flags, f.Name) })
		}
	}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			script, errs, code := runCLI(t, "completion", shell)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			for _, c := range everyCommand() {
				if !strings.Contains(script, c.name) {
					t.Errorf("the script lacks the command %s", c.path())
				}
			}
			for _, f := range flags {
				if !strings.Contains(script, f) {
					t.Errorf("the script lacks the flag --%s", f)
				}
			}
			for _, internal := range []string{"helper", "hook", pluginModeArg} {
				if regexp.MustCompile(`\b` + internal + `\b`).MatchString(script) {
					t.Errorf("the script completes the internal command %s", internal)
				}
			}
			bin, err := exec.LookPath(shell)
			if err != nil {
				t.Skipf("%s is not installed: the script's syntax is not checked", shell)
			}
			file := filepath.Join(t.TempDir(), "notesoup."+shell)
			if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(bin, "-n", file).CombinedOutput(); err != nil {
				t.Errorf("%s -n: %v\n%s", shell, err, out)
			}
		})
	}
	if _, errs, code := runCLI(t, "completion"); code != 2 || !strings.Contains(errs, "bash, zsh or fish") {
		t.Errorf("completion without a shell: exit %d, %s", code, errs)
	}
}

// TestBashCompletionCompletes runs the bash script the way bash's
// completion calls it and checks what it offers: subcommands after a
// command, flags after a dash, a flag's values, nothing internal.
func TestBashCompletionCompletes(t *testing.T) {
	isolate(t)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	script, _, _ := runCLI(t, "completion", "bash")
	file := filepath.Join(t.TempDir(), "c.bash")
	os.WriteFile(file, []byte(script), 0o644)
	tests := []struct {
		line string // the words; the last is being completed
		want []string
		not  []string
	}{
		{"notesoup ", []string{"search", "history", "notes", "completion", "help"}, []string{"helper", "hook"}},
		{"notesoup hi", []string{"history"}, []string{"search"}},
		{"notesoup history ", []string{"sessions", "list", "read", "state", "search"}, []string{"boot"}},
		{"notesoup history list --", []string{"--query", "--session", "--role", "--json"}, []string{"--per-session"}},
		{"notesoup search oat --limit 3 --co", []string{"--color"}, nil},
		{"notesoup search --color ", []string{"auto", "always", "never"}, nil},
		{"notesoup history list --role ", []string{"user", "assistant", "tool"}, nil},
		{"notesoup completion ", []string{"bash", "zsh", "fish"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.line, func(t *testing.T) {
			words := strings.Split(tc.line, " ")
			prog := "source " + file + "\nCOMP_WORDS=(" + strings.Join(quoteAll(words), " ") + ")\nCOMP_CWORD=" +
				strconv.Itoa(len(words)-1) + "\n_notesoup\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
			out, err := exec.Command(bash, "-c", prog).CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			got := "\n" + string(out)
			for _, w := range tc.want {
				if !strings.Contains(got, "\n"+w+"\n") {
					t.Errorf("offers %q, lacks %q", strings.Fields(got), w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(got, "\n"+w+"\n") {
					t.Errorf("offers %q, which it should not", w)
				}
			}
		})
	}
}

func quoteAll(ws []string) []string {
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = shellWord(w)
	}
	return q
}

// TestExitCodesAndJSONErrors: 0 found, 1 nothing found, 2 usage or another
// error, the same in every command; under --json an error is one JSON
// object on stdout and stderr stays empty.
func TestExitCodesAndJSONErrors(t *testing.T) {
	isolate(t)
	roots := copyClaudeFixture(t, "basic.jsonl", cliSID)
	tests := []struct {
		name     string
		args     []string
		code     int
		jsonCode string // under --json: the error's code ("" when no error)
	}{
		{"search finds", []string{"search", "HELLO"}, 0, ""},
		{"search finds nothing", []string{"search", "zz no such words"}, 1, ""},
		{"search finds nothing, json", []string{"search", "zz no such words", "--json"}, 1, ""},
		{"search without a query", []string{"search", "--json"}, 2, codeUsage},
		{"search with a bad flag value", []string{"search", "x", "--limit", "many", "--json"}, 2, codeUsage},
		{"search with an unknown flag", []string{"search", "x", "--bogus", "--json"}, 2, codeUsage},
		{"list --query finds", []string{"history", "list", "--query", "hello"}, 0, ""},
		{"list --query finds nothing", []string{"history", "list", "--query", "zz no such words"}, 1, ""},
		{"list --query finds nothing, json", []string{"history", "list", "--query", "zz no such words", "--json"}, 1, ""},
		{"list without --query", []string{"history", "list"}, 0, ""},
		{"sessions --query finds nothing", []string{"history", "sessions", "--query", "zz no such words"}, 1, ""},
		{"a session that does not exist", []string{"history", "list", "--session", "claude:ffff", "--json"}, 2, codeError},
		{"read without --seq", []string{"history", "read", "--json"}, 2, codeUsage},
		{"a note that does not exist", []string{"notes", "read", "nope.md", "--json"}, 2, codeError},
		{"boot of an unknown harness", []string{"boot", "--harness", "vim", "--session", "s", "--json"}, 2, codeError},
		{"limits without a harness", []string{"limits", "--json"}, 2, codeUsage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{}, tc.args...), roots...)
			if tc.args[0] == "notes" || tc.args[0] == "boot" || tc.args[0] == "limits" {
				args = tc.args
			}
			out, errs, code := runCLI(t, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, tc.code, out, errs)
			}
			if tc.jsonCode == "" {
				return
			}
			var e errorJSON
			if err := json.Unmarshal([]byte(out), &e); err != nil || e.Error.Code != tc.jsonCode || e.Error.Message == "" {
				t.Errorf("stdout is not the JSON error %q: %q (%v)", tc.jsonCode, out, err)
			}
			if errs != "" {
				t.Errorf("under --json stderr should stay empty, got %q", errs)
			}
		})
	}
	// Without --json the same error is a line on stderr and nothing on stdout.
	out, errs, code := runCLI(t, "notes", "read", "nope.md")
	if code != 2 || out != "" || !strings.HasPrefix(errs, "notesoup notes read: ") {
		t.Errorf("human error: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestSearchFlagsAnywhere: flags before, between and after the query's
// words all apply, and every word is part of the query (Go's flag package
// stopped at the first word: --limit after it was dropped, and so was
// "milk" after "oat").
func TestSearchFlagsAnywhere(t *testing.T) {
	isolate(t)
	roots := sampleRoots(t)
	count := func(args ...string) (int, string) {
		t.Helper()
		out, errs, code := runCLI(t, append(args, roots...)...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errs)
		}
		var r struct {
			Query    string            `json:"query"`
			Sessions []json.RawMessage `json:"sessions"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%q: %v\n%s", args, err, out)
		}
		return len(r.Sessions), r.Query
	}
	all, _ := count("search", "milk", "--json")
	if all < 2 {
		t.Fatalf("the samples mention milk in %d sessions; the test needs 2 or more", all)
	}
	tests := []struct {
		args      []string
		sessions  int
		wantQuery string
	}{
		{[]string{"search", "--json", "milk", "--limit", "1"}, 1, "milk"},
		{[]string{"search", "--limit", "1", "--json", "milk"}, 1, "milk"},
		{[]string{"search", "--stats", "milk", "--limit=1", "--json"}, 1, "milk"},
		{[]string{"search", "-json", "-limit", "1", "milk"}, 1, "milk"}, // Go's single-dash style still works
		{[]string{"search", "--json", "oat", "milk"}, -1, "oat milk"},
		{[]string{"search", "oat", "--json", "milk"}, -1, "oat milk"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			n, q := count(tc.args...)
			if q != tc.wantQuery {
				t.Errorf("query %q, want %q", q, tc.wantQuery)
			}
			if tc.sessions >= 0 && n != tc.sessions {
				t.Errorf("%d sessions, want %d", n, tc.sessions)
			}
			if tc.sessions < 0 && (n == 0 || n >= all) {
				t.Errorf("%d sessions for %q: want some, fewer than milk's %d", n, q, all)
			}
		})
	}
	// -- ends the flags: what follows is query text.
	out, _, _ := runCLI(t, append(append([]string{"search", "--json"}, roots...), "--", "--limit")...)
	if !strings.Contains(out, `"query": "--limit"`) {
		t.Errorf("after -- a word is the query:\n%.300s", out)
	}
}

// sampleRoots are the roots of the recorded sample sessions.
func sampleRoots(t *testing.T) []string {
	t.Helper()
	s := filepath.Join("..", "..", "samples")
	return []string{"--claude-root", filepath.Join(s, "claude", "projects"), "--pi-root", filepath.Join(s, "pi", "sessions"),
		"--codex-root", filepath.Join(s, "codex", "sessions"), "--gemini-root", t.TempDir(), "--cache-dir", t.TempDir()}
}

// TestSearchColorAndPaths: matches are highlighted only when colour is on
// (--color always, or auto on a terminal without NO_COLOR); into a buffer
// (not a terminal) auto is plain; paths are hidden unless --paths, and then
// shown relative to the home.
func TestSearchColorAndPaths(t *testing.T) {
	home := isolate(t)
	// The transcript under the home, so --paths shows it as ~/….
	roots := copyClaudeFixture(t, "basic.jsonl", cliSID)
	under := filepath.Join(home, "claude")
	if err := os.CopyFS(under, os.DirFS(roots[1])); err != nil {
		t.Fatal(err)
	}
	roots[1] = under
	tests := []struct {
		name    string
		args    []string
		noColor string
		bold    bool   // the match is wrapped in the highlight
		path    string // "" for no path shown
	}{
		{"auto into a pipe is plain", nil, "", false, ""},
		{"always highlights", []string{"--color", "always"}, "", true, ""},
		{"always beats NO_COLOR", []string{"--color=always"}, "1", true, ""},
		{"never", []string{"--color", "never"}, "", false, ""},
		{"paths relative to the home", []string{"--paths"}, "", false, "~/claude/-work-proj/" + cliSID + ".jsonl"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("NO_COLOR", tc.noColor)
			out, errs, code := runCLI(t, append(append([]string{"search", "hello"}, tc.args...), roots...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if got := strings.Contains(out, sgrMatch+"HELLO"+sgrReset); got != tc.bold {
				t.Errorf("highlighted %v, want %v:\n%q", got, tc.bold, out)
			}
			if !tc.bold && strings.Contains(out, "\x1b[") {
				t.Errorf("escape sequences in plain output:\n%q", out)
			}
			if tc.path != "" && !strings.Contains(out, tc.path) {
				t.Errorf("lacks the path %s:\n%s", tc.path, out)
			}
			if tc.path == "" && strings.Contains(out, ".jsonl") {
				t.Errorf("shows a path without --paths:\n%s", out)
			}
		})
	}
	if _, errs, code := runCLI(t, append([]string{"search", "hello", "--color", "sometimes"}, roots...)...); code != 2 || !strings.Contains(errs, "auto, always or never") {
		t.Errorf("--color sometimes: exit %d, %s", code, errs)
	}
	for _, tc := range []struct {
		s, q string
		cs   bool
		want string
	}{
		{"say HELLO and hello", "hello", false, "say [HELLO] and [hello]"},
		{"say HELLO and hello", "hello", true, "say HELLO and [hello]"},
		{"straße STRASSE", "straße", false, "[straße] STRASSE"},
		{"ΣΊΣΥΦΟΣ σίσυφος", "σίσυφος", false, "[ΣΊΣΥΦΟΣ] [σίσυφος]"},
	} {
		got := strings.NewReplacer(sgrMatch, "[", sgrReset, "]").Replace(highlight(tc.s, tc.q, tc.cs, true))
		if got != tc.want {
			t.Errorf("highlight(%q, %q, %v) = %q, want %q", tc.s, tc.q, tc.cs, got, tc.want)
		}
	}
}

// TestSearchCaseSensitive: --case-sensitive keeps only entries with the
// query's exact case; without it the search ignores case.
func TestSearchCaseSensitive(t *testing.T) {
	isolate(t)
	roots := copyClaudeFixture(t, "basic.jsonl", cliSID)
	tests := []struct {
		query string
		flags []string
		code  int
	}{
		{"HELLO", nil, 0},
		{"hello", nil, 0},
		{"HELLO", []string{"--case-sensitive"}, 0},
		{"HeLLo", []string{"--case-sensitive"}, 1},
		{"HeLLo", nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.query+strings.Join(tc.flags, ""), func(t *testing.T) {
			out, errs, code := runCLI(t, append(append([]string{"search", tc.query, "--json"}, tc.flags...), roots...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s %s", code, tc.code, out, errs)
			}
			if tc.code == 0 && len(tc.flags) > 0 && !strings.Contains(out, tc.query) {
				t.Errorf("the entries kept lack %q:\n%s", tc.query, out)
			}
		})
	}
}

// TestCLIWords: messages of the shared layers (written for the model's
// tools) reach the CLI in its own words: its commands and flags, no tool
// name, no argument=value, "1 entry".
func TestCLIWords(t *testing.T) {
	home := isolate(t)
	proj := t.TempDir()
	common := []string{"--home", home, "--cwd", proj}
	roots := copyClaudeFixture(t, "basic.jsonl", cliSID)
	notesStdin = strings.NewReader("a\nb b\nb b\n")
	if _, errs, code := runCLI(t, append([]string{"notes", "write", "n.md"}, common...)...); code != 0 {
		t.Fatalf("write: %s", errs)
	}
	tool := regexp.MustCompile(`\b(notes|history)_(list|read|write|edit|delete|state)\b|\b(old_text|new_text|allow_empty)\b|\b[a-z]+=\d`)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"from after to", []string{"notes", "read", "n.md", "--from", "3", "--to", "1"}, "--from 3 is after --to 1"},
		{"edit matches twice", []string{"notes", "edit", "n.md", "--old", "b b", "--new", "c"}, "--old occurs 2 times"},
		{"edit matches nowhere", []string{"notes", "edit", "n.md", "--old", "zz", "--new", "c"}, "--old occurs 0 times"},
		{"no such note", []string{"notes", "read", "x.md"}, "run notesoup notes list"},
		{"no note to delete", []string{"notes", "delete", "x.md"}, "notesoup notes list"},
		{"edit of no note", []string{"notes", "edit", "x.md", "--old", "a", "--new", "b"}, "notesoup notes write"},
		{"from past the end", []string{"notes", "read", "n.md", "--from", "9"}, "--from 9 is past the end"},
		{"from and offset", []string{"notes", "read", "n.md", "--from", "2", "--offset", "1"}, "give --from or --offset"},
		{"after and before", []string{"history", "list", "--after", "2", "--before", "5"}, "--after/--oldest"},
		{"limit out of range", []string{"history", "list", "--limit", "999"}, "--limit must be between"},
		{"unknown role", []string{"history", "list", "--role", "robot"}, `unknown role "robot"`},
		{"no such address", []string{"history", "read", "--seq", "999"}, "use notesoup history list"},
		{"seq zero", []string{"history", "read", "--seq", "0"}, "--seq must be a positive address from notesoup history list"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{}, tc.args...), common...)
			if tc.args[0] == "history" {
				args = append(append([]string{}, tc.args...), roots...)
			}
			_, errs, code := runCLI(t, args...)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if !strings.Contains(errs, tc.want) {
				t.Errorf("stderr %q lacks %q", errs, tc.want)
			}
			if m := tool.FindString(errs); m != "" {
				t.Errorf("stderr speaks the tools' words (%q): %s", m, errs)
			}
		})
	}
	out, _, _ := runCLI(t, append([]string{"history", "list", "--query", "hello"}, roots...)...)
	if !strings.HasPrefix(out, "1 entry matching") || strings.Contains(out, "history_list") {
		t.Errorf("list header not in the CLI's words:\n%s", out)
	}
}

// TestHumanTables: listings are tables with a header and aligned columns,
// sizes with their unit, times in the local zone.
func TestHumanTables(t *testing.T) {
	home := isolate(t)
	old := time.Local
	time.Local = time.FixedZone("TEST", 5*3600+30*60)
	defer func() { time.Local = old }()
	roots := copyClaudeFixture(t, "basic.jsonl", cliSID)
	out, errs, code := runCLI(t, append([]string{"history", "sessions"}, roots...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !regexp.MustCompile(`^SESSION +UPDATED +SIZE +CWD +TITLE$`).MatchString(lines[0]) {
		t.Fatalf("no header:\n%s", out)
	}
	for col, cell := range map[string]int{
		"UPDATED": regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d`).FindStringIndex(lines[1])[0],
		"CWD":     strings.Index(lines[1], "/work/proj"),
		"TITLE":   strings.Index(lines[1], "Please"),
	} {
		if strings.Index(lines[0], col) != cell {
			t.Errorf("column %s is not aligned:\n%s", col, out)
		}
	}
	if !regexp.MustCompile(`\d+(\.\d)? (B|KiB|MiB)\b`).MatchString(lines[1]) {
		t.Errorf("the size has no unit: %s", lines[1])
	}
	// The fixture's last record is at 2025-…Z; the local zone is UTC+5:30,
	// so the minute shown ends in :xx where xx = UTC minute + 30.
	js, _, _ := runCLI(t, append([]string{"history", "sessions", "--json"}, roots...)...)
	var ss []sessionJSON
	if err := json.Unmarshal([]byte(js), &ss); err != nil || len(ss) != 1 {
		t.Fatalf("sessions --json: %v %s", err, js)
	}
	if local := ss[0].Updated.In(time.Local).Format("2006-01-02 15:04"); !strings.Contains(lines[1], local) {
		t.Errorf("the time is not in the local zone (%s):\n%s", local, lines[1])
	}
	// Notes: a table too.
	notesStdin = strings.NewReader("# Title\n")
	runCLI(t, "notes", "write", "~/a.md", "--home", home)
	out, _, _ = runCLI(t, "notes", "list", "--home", home)
	if !regexp.MustCompile(`(?m)^NAME +SIZE +MODIFIED +FIRST LINE\n~/a\.md +8 B +\d{4}-\d\d-\d\d \d\d:\d\d +Title$`).MatchString(out) {
		t.Errorf("notes list is not a table:\n%s", out)
	}
}

// TestHomeMeansOneThing: --home is the notesoup home in every command that
// takes it (notes written with it are in the boot block of another command
// given it), and limits reads the harnesses' settings from --user-home.
func TestHomeMeansOneThing(t *testing.T) {
	isolate(t)
	nh, proj := t.TempDir(), t.TempDir()
	notesStdin = strings.NewReader("# Remember the milk\n")
	if _, errs, code := runCLI(t, "notes", "write", "~/milk.md", "--home", nh, "--cwd", proj); code != 0 {
		t.Fatal(errs)
	}
	out, _, code := runCLI(t, "boot", "--harness", "claude", "--session", "s", "--cwd", proj, "--home", nh)
	if code != 0 || !strings.Contains(out, "milk.md") {
		t.Errorf("boot --home does not see the note written with notes --home: exit %d\n%s", code, out)
	}
	if got, _, _ := runCLI(t, "boot", "--harness", "claude", "--session", "s", "--cwd", proj); strings.Contains(got, "milk.md") {
		t.Errorf("without --home the note shows: --home leaked out of the command it was given to")
	}
	for _, c := range everyCommand() {
		if fs := c.flagSet(); fs != nil {
			if f := fs.Lookup("home"); f != nil && !strings.Contains(f.Usage, "notesoup home") {
				t.Errorf("%s --home means something else: %s", c.path(), f.Usage)
			}
		}
	}
	user := t.TempDir()
	os.MkdirAll(filepath.Join(user, ".pi", "agent"), 0o755)
	os.WriteFile(filepath.Join(user, ".pi", "agent", "settings.json"), []byte(`{"notesoup":{"resetMarginTokens":1234}}`), 0o644)
	out, errs, code := runCLI(t, "limits", "--harness", "pi", "--window", "200000", "--user-home", user, "--home", nh, "--cwd", proj)
	if code != 0 || !strings.Contains(out, "resetMarginTokens 1234") {
		t.Errorf("limits --user-home: exit %d %s\n%s", code, errs, out)
	}
}

// TestLogEnvChecked: NOTESOUP_LOG takes the logger's levels and nothing
// else; an unknown value is refused with the list, for the commands people
// type (a harness's hook is not broken by it).
func TestLogEnvChecked(t *testing.T) {
	for _, tc := range []struct {
		value string
		code  int
	}{{"", 0}, {"debug", 0}, {"WARN", 0}, {"off", 0}, {"verbose", 2}, {"3", 2}} {
		t.Run(tc.value, func(t *testing.T) {
			isolate(t)
			t.Setenv("NOTESOUP_LOG", tc.value)
			_, errs, code := runCLI(t, "notes", "list")
			if code != tc.code {
				t.Errorf("exit %d, want %d: %s", code, tc.code, errs)
			}
			if tc.code == 2 && !strings.Contains(errs, "trace, debug, info, warn, error, off") {
				t.Errorf("the refusal lacks the list: %s", errs)
			}
		})
	}
}

// TestGoStyleFlags: -name still works as --name for a long flag, and a
// value that looks like a flag is left alone.
func TestGoStyleFlags(t *testing.T) {
	fs := newFlags("t")
	fs.String("new", "", "")
	fs.Bool("json", false, "")
	for _, tc := range []struct{ in, want []string }{
		{[]string{"-json", "x"}, []string{"--json", "x"}},
		{[]string{"-new", "-json"}, []string{"--new", "-json"}},
		{[]string{"--new", "-json", "-json"}, []string{"--new", "-json", "--json"}},
		{[]string{"-x"}, []string{"-x"}},
		{[]string{"--", "-json"}, []string{"--", "-json"}},
		{[]string{"-new=a"}, []string{"--new=a"}},
	} {
		if got := goStyleFlags(fs, tc.in); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("goStyleFlags(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestMakeHelp: `make help` lists the targets, the README's two among them,
// with the comment that says what each does.
func TestMakeHelp(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	out, err := exec.Command("make", "-s", "-C", filepath.Join("..", ".."), "help").CombinedOutput()
	if err != nil {
		t.Fatalf("make help: %v\n%s", err, out)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^  demo +`), regexp.MustCompile(`(?m)^  test +everything CI runs`),
		regexp.MustCompile(`(?m)^  build +`), regexp.MustCompile(`(?m)^  help +list the targets`),
	} {
		if !want.Match(out) {
			t.Errorf("make help lacks %v:\n%s", want, out)
		}
	}
}

// TestDemo runs scripts/demo.sh over freshly built binaries: each step is
// narrated and typed as a person would type it (no long temporary paths),
// it shows the boot block, a search and a reset's boot block, and into a
// pipe it prints no escape sequence; on a terminal (script(1)) the search
// highlights its matches.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two binaries")
	}
	isolate(t)
	bin := t.TempDir()
	for _, b := range []struct{ out, tags string }{{"notesoup", "light"}, {"notesoup-host", ""}} {
		if msg, err := exec.Command("go", "build", "-tags", b.tags, "-o", filepath.Join(bin, b.out), ".").CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, msg)
		}
	}
	script := filepath.Join("..", "..", "scripts", "demo.sh")
	cmd := exec.Command("bash", script)
	cmd.Env = append(os.Environ(), "NOTESOUP_DEMO_BIN="+bin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	text := string(out)
	if strings.Contains(text, "\x1b") {
		t.Errorf("the demo prints escape sequences into a pipe:\n%q", text)
	}
	steps := regexp.MustCompile(`(?m)^\$ .*$`).FindAllString(text, -1)
	if len(steps) < 6 {
		t.Fatalf("%d steps:\n%s", len(steps), text)
	}
	for _, s := range steps {
		if !strings.HasPrefix(s, "$ notesoup ") || strings.Contains(s, "/tmp") || strings.Contains(s, bin) {
			t.Errorf("a step not as a person types it: %s", s)
		}
	}
	if n := len(regexp.MustCompile(`(?m)^# `).FindAllString(text, -1)); n < len(steps)-1 {
		t.Errorf("%d narration lines for %d steps", n, len(steps))
	}
	for _, want := range []string{"$ notesoup search \"oat milk\"", "<notesoup-boot window=\"claude:demo:0\">",
		"## Last word from your previous window", "## Handoff", "# A reset: "} {
		if !strings.Contains(text, want) {
			t.Errorf("the demo lacks %q", want)
		}
	}
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) is not installed: the terminal run is not checked")
	}
	cmd = exec.Command("script", "-qec", "bash "+script, os.DevNull)
	cmd.Env = append(os.Environ(), "NOTESOUP_DEMO_BIN="+bin, "NO_COLOR=")
	out, err = cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("demo on a terminal: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), sgrMatch+"oat milk"+sgrReset) {
		t.Errorf("on a terminal the search does not highlight its matches:\n%q", out)
	}
}
