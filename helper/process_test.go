package helper_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/internal/testbin"
)

// env is one isolated notesoup environment over the sample corpus.
type env struct {
	bin  string
	vars []string
	home string
	cwd  string // a project directory
	// argv runs the helper: the full build's `notesoup helper` unless a
	// test chose the light build's (see eachHelper).
	argv []string
}

// eachHelper runs f once per build that answers the protocol, each in a
// fresh environment: the full build (`go install`) and the light build
// (`make build`'s bin/notesoup) must give the same answers.
func eachHelper(t *testing.T, f func(t *testing.T, e env)) {
	light, err := testbin.Light()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"full", "light"} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			if name == "light" {
				e.argv = []string{light, "helper"}
			}
			f(t, e)
		})
	}
}

func newEnv(t *testing.T) env { return newEnvB(t) }

func newEnvB(t testing.TB) env {
	t.Helper()
	bin, err := testbin.Notesoup()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cwd := filepath.Join(home, "proj")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	return env{bin: bin, vars: testbin.SampleEnv(home), home: home, cwd: cwd, argv: []string{bin, "helper"}}
}

// response is the helper's answer, decoded loosely for assertions.
type response struct {
	V      int             `json:"v"`
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code, Message, Field string
	} `json:"error"`
}

// run sends one request to the helper as a process.
func (e env) run(t *testing.T, req string) (response, string) {
	t.Helper()
	req = strings.ReplaceAll(req, "$CWD", e.cwd)
	cmd := exec.Command(e.argv[0], e.argv[1:]...)
	cmd.Env = e.vars
	cmd.Stdin = strings.NewReader(req)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("helper exited with %v for %s\nstderr: %s", err, req, errb.String())
	}
	if bytes.Count(out.Bytes(), []byte("\n")) != 1 {
		t.Fatalf("stdout must be exactly one JSON line, got %q", out.String())
	}
	var r response
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("response is not JSON: %v: %q", err, out.String())
	}
	if r.V != 1 {
		t.Fatalf("response v = %d", r.V)
	}
	return r, out.String()
}

func TestHelperOperations(t *testing.T) { eachHelper(t, testHelperOperations) }

func testHelperOperations(t *testing.T, e env) {
	claudeTools := "0b5e8a61-7c1d-4f3e-9a2b-000000000001"
	tests := []struct {
		name      string
		req       string
		wantCode  string   // "" for success
		wantField string   // field at fault
		contains  []string // substrings of the raw response
	}{
		{name: "version", req: `{"v":1,"op":"version"}`, contains: []string{`"protocol":1`, `"contract":1`}},
		{name: "not json", req: `{"v":1,`, wantCode: "bad_request"},
		{name: "unknown envelope field", req: `{"v":1,"op":"version","extra":1}`, wantCode: "bad_request", wantField: "extra"},
		{name: "wrong version", req: `{"v":2,"op":"version"}`, wantCode: "unsupported_version", wantField: "v"},
		{name: "unknown op", req: `{"v":1,"op":"nope"}`, wantCode: "unknown_op", wantField: "op", contains: []string{"notes.read"}},
		{name: "caller wrong type", req: `{"v":1,"op":"version","caller":{"cwd":5}}`, wantCode: "bad_request", wantField: "caller.cwd"},
		{name: "version takes no args", req: `{"v":1,"op":"version","args":{"x":1}}`, wantCode: "invalid_argument", wantField: "args.x"},

		{name: "notes write", req: `{"v":1,"op":"notes.write","caller":{"cwd":"$CWD"},"args":{"name":"api/auth.md","content":"# Auth\ntokens rotate daily\ntokens rotate daily\n"}}`,
			contains: []string{`"name":"api/auth.md"`}},
		{name: "notes read", req: `{"v":1,"op":"notes.read","caller":{"cwd":"$CWD"},"args":{"name":"api/auth.md"}}`, contains: []string{"tokens rotate daily"}},
		{name: "notes list", req: `{"v":1,"op":"notes.list","caller":{"cwd":"$CWD"}}`, contains: []string{"api/auth.md"}},
		{name: "notes edit ambiguous", req: `{"v":1,"op":"notes.edit","caller":{"cwd":"$CWD"},"args":{"name":"api/auth.md","old_text":"tokens rotate daily","new_text":"x"}}`,
			wantCode: "ambiguous_match"},
		{name: "notes edit", req: `{"v":1,"op":"notes.edit","caller":{"cwd":"$CWD"},"args":{"name":"api/auth.md","old_text":"# Auth\n","new_text":"# Auth service\n"}}`},
		{name: "notes bad name", req: `{"v":1,"op":"notes.read","caller":{"cwd":"$CWD"},"args":{"name":"../etc/passwd"}}`, wantCode: "invalid_name", wantField: "args.name"},
		{name: "notes unknown arg", req: `{"v":1,"op":"notes.read","caller":{"cwd":"$CWD"},"args":{"name":"a.md","bogus":1}}`, wantCode: "invalid_argument", wantField: "args.bogus", contains: []string{"bogus"}},
		{name: "notes wrong type", req: `{"v":1,"op":"notes.write","caller":{"cwd":"$CWD"},"args":{"name":"a.md","content":5}}`, wantCode: "invalid_argument", wantField: "args.content", contains: []string{"must be a string"}},
		{name: "notes wrongly cased arg", req: `{"v":1,"op":"notes.read","caller":{"cwd":"$CWD"},"args":{"Name":"a.md"}}`, wantCode: "invalid_argument", wantField: "args.Name"},
		{name: "notes missing arg", req: `{"v":1,"op":"notes.write","caller":{"cwd":"$CWD"},"args":{"name":"a.md"}}`, wantCode: "invalid_argument", wantField: "args.content"},
		{name: "notes lone surrogate", req: `{"v":1,"op":"notes.write","caller":{"cwd":"$CWD"},"args":{"name":"a.md","content":"x\ud800y"}}`, wantCode: "invalid_argument", wantField: "args.content", contains: []string{"surrogate"}},
		{name: "notes invalid UTF-8", req: "{\"v\":1,\"op\":\"notes.write\",\"caller\":{\"cwd\":\"$CWD\"},\"args\":{\"name\":\"a.md\",\"content\":\"x\xffy\"}}", wantCode: "invalid_argument", wantField: "args.content", contains: []string{"UTF-8"}},
		{name: "wrongly cased envelope field", req: `{"V":1,"op":"version"}`, wantCode: "bad_request", wantField: "V"},
		{name: "wrongly cased caller field", req: `{"v":1,"op":"version","caller":{"Cwd":"/"}}`, wantCode: "bad_request", wantField: "caller.Cwd"},
		{name: "duplicate envelope field", req: `{"v":1,"v":1,"op":"version"}`, wantCode: "bad_request", wantField: "v"},
		{name: "history list wrongly cased arg", req: `{"v":1,"op":"history.list","args":{"session":"latest","Query":"x"}}`, wantCode: "invalid_argument", wantField: "args.Query"},
		{name: "history list lone surrogate", req: `{"v":1,"op":"history.list","args":{"session":"latest","query":"\udc00"}}`, wantCode: "invalid_argument", wantField: "args.query"},
		{name: "notes delete", req: `{"v":1,"op":"notes.delete","caller":{"cwd":"$CWD"},"args":{"name":"api/auth.md"}}`},
		{name: "notes read deleted", req: `{"v":1,"op":"notes.read","caller":{"cwd":"$CWD"},"args":{"name":"api/auth.md"}}`, wantCode: "not_found"},

		{name: "limits claude", req: `{"v":1,"op":"limits","caller":{"harness":"claude"},"args":{"model":"m","model_window":200000}}`,
			contains: []string{`"native":167000`, `"hard":158808`, `"warning":142424`, `"source":"claude: model window"`}},
		{name: "limits needs harness", req: `{"v":1,"op":"limits","args":{}}`, wantCode: "invalid_argument", wantField: "caller.harness"},
		{name: "limits settings not object", req: `{"v":1,"op":"limits","caller":{"harness":"claude"},"args":{"settings":[1]}}`, wantCode: "invalid_argument", wantField: "args.settings"},
		{name: "limits cap too small", req: `{"v":1,"op":"limits","caller":{"harness":"claude"},"args":{"model_window":200000,"cap":"20k"}}`, wantCode: "failed", wantField: "args.cap"},
		{name: "limits unknown harness", req: `{"v":1,"op":"limits","caller":{"harness":"emacs"},"args":{}}`, wantCode: "failed", contains: []string{"emacs"}},

		{name: "boot", req: `{"v":1,"op":"boot","caller":{"harness":"claude","session":"s1","cwd":"$CWD"},"args":{"ordinal":2,"sticky":"check CI"}}`,
			contains: []string{`claude:s1:2`, "mcp__notesoup__empty_brain", "check CI"}},
		{name: "boot pi", req: `{"v":1,"op":"boot","caller":{"harness":"pi","session":"s1","cwd":"$CWD"}}`, contains: []string{`pi:s1:0`, "empty_brain"}},
		{name: "boot negative ordinal", req: `{"v":1,"op":"boot","caller":{"harness":"claude","session":"s1","cwd":"$CWD"},"args":{"ordinal":-1}}`, wantCode: "invalid_argument", wantField: "args.ordinal"},
		{name: "boot needs session", req: `{"v":1,"op":"boot","caller":{"harness":"claude","cwd":"$CWD"}}`, wantCode: "failed"},

		{name: "sessions", req: `{"v":1,"op":"history.sessions"}`, contains: []string{`"ref":"claude:` + claudeTools, `"ref":"pi:`, `"ref":"codex:`}},
		{name: "sessions by query", req: `{"v":1,"op":"history.sessions","args":{"query":"oat milk"}}`, contains: []string{"oat milk"}},
		{name: "sessions bad limit", req: `{"v":1,"op":"history.sessions","args":{"limit":-1}}`, wantCode: "invalid_argument", wantField: "args.limit"},
		{name: "history list", req: `{"v":1,"op":"history.list","args":{"session":"claude:` + claudeTools + `","query":"NOTES.TXT"}}`, contains: []string{"notes.txt"}},
		{name: "history list current", req: `{"v":1,"op":"history.list","caller":{"harness":"claude","session":"` + claudeTools + `"},"args":{"query":"greeting"}}`, contains: []string{"greeting"}},
		{name: "history list path selector", req: `{"v":1,"op":"history.list","args":{"session":"/etc/passwd"}}`, wantCode: "failed", contains: []string{"looks like a path"}},
		{name: "history list unbound current", req: `{"v":1,"op":"history.list","args":{}}`, wantCode: "failed", contains: []string{"no current session"}},
		{name: "history list bad arg", req: `{"v":1,"op":"history.list","args":{"session":"latest","regex":"x"}}`, wantCode: "invalid_argument", wantField: "args.regex", contains: []string{"regex"}},
		{name: "history read", req: `{"v":1,"op":"history.read","args":{"session":"claude:` + claudeTools + `","seq":1}}`, contains: []string{`"seq":1`}},
		{name: "history read missing seq", req: `{"v":1,"op":"history.read","args":{"session":"latest"}}`, wantCode: "invalid_argument", wantField: "args"},
		{name: "history state", req: `{"v":1,"op":"history.state","args":{"session":"claude:` + claudeTools + `"}}`, contains: []string{`"ordinal":0`}},

		{name: "reset event", req: `{"v":1,"op":"reset.event","caller":{"harness":"claude","session":"s1"},"args":{"type":"reset_requested","last_word":"go on","terminate":false}}`,
			contains: []string{`"actions"`}},
		{name: "reset event unknown type", req: `{"v":1,"op":"reset.event","caller":{"harness":"claude","session":"s1"},"args":{"type":"explode"}}`, wantCode: "invalid_argument", wantField: "args"},
		{name: "reset state", req: `{"v":1,"op":"reset.state","caller":{"harness":"claude","session":"s1"}}`, contains: []string{"go on"}},
		{name: "reset needs session", req: `{"v":1,"op":"reset.state","caller":{"harness":"claude"}}`, wantCode: "failed"},

		{name: "warning", req: `{"v":1,"op":"text.warning","args":{"reset_tool":"empty_brain","tokens_left":12345}}`, contains: []string{"empty_brain", "12,345"}},
		{name: "warning needs tool", req: `{"v":1,"op":"text.warning","args":{"tokens_left":1}}`, wantCode: "invalid_argument", wantField: "args.reset_tool"},
		{name: "handoff", req: `{"v":1,"op":"text.handoff","args":{"pool":"forced","index":0}}`, contains: []string{"notesoup"}},
		{name: "handoff bad pool", req: `{"v":1,"op":"text.handoff","args":{"pool":"weird","index":0}}`, wantCode: "invalid_argument", wantField: "args.pool"},
		{name: "handoff bad index", req: `{"v":1,"op":"text.handoff","args":{"pool":"normal","index":99}}`, wantCode: "invalid_argument", wantField: "args.index"},
		{name: "handoff wrong type", req: `{"v":1,"op":"text.handoff","args":{"pool":"normal","index":"1"}}`, wantCode: "invalid_argument", wantField: "args.index"},
	}
	for _, tc := range tests { // in order: later cases read what earlier ones wrote
		t.Run(tc.name, func(t *testing.T) {
			r, raw := e.run(t, tc.req)
			if tc.wantCode == "" {
				if !r.OK || r.Error != nil {
					t.Fatalf("want success, got %s", raw)
				}
			} else {
				if r.OK || r.Error == nil || r.Error.Code != tc.wantCode {
					t.Fatalf("want error %s, got %s", tc.wantCode, raw)
				}
				if r.Error.Field != tc.wantField {
					t.Errorf("error field = %q, want %q (%s)", r.Error.Field, tc.wantField, raw)
				}
				if r.Error.Message == "" {
					t.Errorf("error without a message: %s", raw)
				}
			}
			for _, s := range tc.contains {
				if !strings.Contains(raw, s) && !strings.Contains(raw, strings.ReplaceAll(s, "\n", `\n`)) {
					t.Errorf("response lacks %q: %s", s, raw)
				}
			}
		})
	}
}
