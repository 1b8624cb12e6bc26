package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/harness"
	"github.com/notesoup/notesoup/shared/reset"
)

// Gemini's default point: 0.5 × 1,048,576; the warning point is that less
// the default reset margin and warning runway.
const (
	testNative  = 524_288
	testWarning = testNative - reset.DefaultResetMarginTokens - reset.DefaultWarningRunwayTokens
)

const (
	chatMeta = `{"sessionId":"5f0c1c2e-aaaa-bbbb-cccc-000000000001","projectHash":"p","startTime":"2026-01-01T00:00:00Z","lastUpdated":"2026-01-01T00:00:00Z","kind":"main"}`
	userLine = `{"id":"u1","timestamp":"2026-01-01T00:00:01Z","type":"user","content":[{"text":"hi"}]}`
)

// gemLine is a Gemini message line reporting input prompt tokens.
func gemLine(id string, input int64, model string) string {
	b, _ := json.Marshal(map[string]any{"id": id, "timestamp": "2026-01-01T00:00:02Z", "type": "gemini", "content": "ok",
		"model": model, "tokens": map[string]any{"input": input, "output": 5, "cached": 0, "thoughts": 0, "tool": 0, "total": input + 5}})
	return string(b)
}

func chatOf(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

// TestLastUsage: the chat's last Gemini message with tokens gives the
// window's size, unless the history was replaced or cut after it; torn,
// foreign and token-less lines decide nothing, and lines longer than a
// read-back chunk are assembled. End is the offset past the last whole
// line.
func TestLastUsage(t *testing.T) {
	big := strings.Repeat("x", 3*tailChunk)
	bigTool := `{"id":"g9","type":"gemini","content":"` + big + `","model":"m","tokens":{"input":777}}`
	cases := []struct {
		name  string
		chat  string
		want  int64
		model string
	}{
		{name: "metadata only", chat: chatOf(chatMeta)},
		{name: "no response yet", chat: chatOf(chatMeta, userLine)},
		{name: "one response", chat: chatOf(chatMeta, userLine, gemLine("g1", 1200, "gemini-2.5-pro")), want: 1200, model: "gemini-2.5-pro"},
		{name: "the latest response counts", chat: chatOf(chatMeta, userLine, gemLine("g1", 1200, "m"), userLine, gemLine("g2", 5000, "m")), want: 5000, model: "m"},
		{name: "a message written again keeps its tokens", chat: chatOf(chatMeta, gemLine("g1", 10, "m"), gemLine("g2", 900, "m"), gemLine("g2", 900, "m")), want: 900, model: "m"},
		{name: "later lines without tokens", chat: chatOf(chatMeta, gemLine("g1", 42, "m"), userLine, `{"$set":{"lastUpdated":"2026-01-01T00:00:09Z"}}`), want: 42, model: "m"},
		{name: "tokens null", chat: chatOf(chatMeta, gemLine("g1", 42, "m"), `{"id":"g2","type":"gemini","content":"","tokens":null}`), want: 42, model: "m"},
		{name: "a user line naming tokens", chat: chatOf(chatMeta, gemLine("g1", 42, "m"), `{"id":"u2","type":"user","content":"tokens","tokens":{"input":999999}}`), want: 42, model: "m"},
		{name: "compression replaces the history", chat: chatOf(chatMeta, gemLine("g1", 600000, "m"), `{"$set":{"messages":[{"id":"s1","type":"user","content":"<state_snapshot>…</state_snapshot>"},`+gemLine("g1", 600000, "m")+`]}}`)},
		{name: "a response after the compression", chat: chatOf(chatMeta, gemLine("g1", 600000, "m"), `{"$set":{"messages":[{"id":"s1","type":"user","content":"snap"}]}}`, gemLine("g2", 3000, "m")), want: 3000, model: "m"},
		{name: "rewind", chat: chatOf(chatMeta, gemLine("g1", 600000, "m"), `{"$rewindTo":"g1"}`)},
		{name: "torn last line", chat: chatOf(chatMeta, gemLine("g1", 42, "m")) + `{"id":"g2","type":"gemini","tokens":{"input":9`, want: 42, model: "m"},
		{name: "a long line after the tokens", chat: chatOf(chatMeta, gemLine("g1", 42, "m"), `{"id":"t1","type":"user","content":"`+big+`"}`), want: 42, model: "m"},
		{name: "tokens on a long line", chat: chatOf(chatMeta, userLine, bigTool, userLine), want: 777, model: "m"},
		{name: "tokens on the first line", chat: gemLine("g1", 5, "m"), want: 5, model: "m"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "session-x.jsonl")
			if err := os.WriteFile(path, []byte(tc.chat), 0o600); err != nil {
				t.Fatal(err)
			}
			u, err := lastUsage(path)
			if err != nil {
				t.Fatal(err)
			}
			if u.Tokens != tc.want || u.Model != tc.model {
				t.Fatalf("lastUsage = %+v, want tokens %d model %q", u, tc.want, tc.model)
			}
			// End is past the last whole line: a torn one is left out.
			if want := int64(strings.LastIndex(tc.chat, "\n") + 1); u.End != want {
				t.Errorf("End = %d, want %d", u.End, want)
			}
		})
	}
}

// TestLastUsageRefuses: only regular .jsonl files are read.
func TestLastUsageRefuses(t *testing.T) {
	dir := t.TempDir()
	if _, err := lastUsage(filepath.Join(dir, "chat.json")); err == nil || !strings.Contains(err.Error(), ".jsonl") {
		t.Errorf("a .json file: %v", err)
	}
	sub := filepath.Join(dir, "d.jsonl")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := lastUsage(sub); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v", err)
	}
}

// fakeEnv is notesoup's side of a hook: Gemini's real thresholds with the
// default margins, a window ordinal the test sets, and a state directory.
type fakeEnv struct {
	ord      int
	ordErr   error
	state    string
	models   []string
	ordCalls int
}

func (f *fakeEnv) WindowOrdinal(ctx context.Context, session, cwd string) (int, error) {
	f.ordCalls++
	return f.ord, f.ordErr
}

func (f *fakeEnv) Boot(ctx context.Context, session, cwd string, ord int, notices []string) (string, error) {
	return "boot", nil
}

func (f *fakeEnv) Limits(ctx context.Context, in reset.ThresholdInput) (reset.Limits, error) {
	f.models = append(f.models, in.Model)
	p := Thresholds(in)
	return reset.ComputeLimits(p, reset.MarginsFromSettings(p.PolicySettings), 0)
}

func (f *fakeEnv) StateDir() string { return f.state }

// TestBudgetWarning: AfterTool and BeforeAgent answer the warning once the
// chat's last prompt is past the warning point, once per window: below it
// nothing; past it once, then nothing in the same window (whichever event
// asks); after a compression's history replacement nothing is measured
// until the next response; a new window (one more compression) warns
// again. The chat grows as the CLI writes it (appended lines), and the
// decoder is asked for the window only when a line that replaces the
// history was written since it was last asked.
func TestBudgetWarning(t *testing.T) {
	gemHome := t.TempDir()
	t.Setenv(envHome, gemHome)
	t.Setenv(envModel, "")
	t.Setenv(envSystemSettings, filepath.Join(gemHome, "no-system.json"))
	t.Setenv(envSystemDefaults, filepath.Join(gemHome, "no-defaults.json"))
	chats := filepath.Join(gemHome, ".gemini", "tmp", "proj", "chats")
	if err := os.MkdirAll(chats, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(chats, "session-2026-01-01T00-00-5f0c1c2e.jsonl")
	env := &fakeEnv{state: t.TempDir()}
	const session = "5f0c1c2e-aaaa-bbbb-cccc-000000000001"
	const compression = `{"$set":{"messages":[{"id":"s1","type":"user","content":"<state_snapshot>the story so far</state_snapshot>"}]}}`
	cwd := t.TempDir()

	steps := []struct {
		name    string
		add     []string // lines the CLI wrote since the last step
		event   string
		ord     int // the window the decoder counts
		warn    bool
		decodes int // the decoder's answers asked for so far
	}{
		{name: "no response yet", add: []string{chatMeta, userLine}, event: BeforeAgent},
		{name: "below the warning point", add: []string{gemLine("g1", testWarning-1, "gemini-2.5-pro")}, event: AfterTool},
		{name: "at the warning point", add: []string{gemLine("g2", testWarning, "gemini-2.5-pro")}, event: AfterTool, warn: true, decodes: 1},
		{name: "past it again, same window", add: []string{gemLine("g3", testWarning+5000, "gemini-2.5-pro")}, event: AfterTool, decodes: 1},
		{name: "same window, at a prompt", add: []string{userLine, gemLine("g4", testWarning+6000, "gemini-2.5-pro")}, event: BeforeAgent, decodes: 1},
		{name: "compressed: nothing measured yet", add: []string{compression}, event: AfterTool, ord: 1, decodes: 1},
		{name: "new window, small", add: []string{gemLine("g5", 20000, "gemini-2.5-pro")}, event: AfterTool, ord: 1, decodes: 1},
		{name: "new window past the point", add: []string{gemLine("g6", testWarning+10, "gemini-2.5-pro")}, event: BeforeAgent, ord: 1, warn: true, decodes: 2},
		{name: "new window, once", add: []string{gemLine("g7", testWarning+20, "gemini-2.5-pro")}, event: AfterTool, ord: 1, decodes: 2},
		{name: "Gemma's smaller limit, a third window", add: []string{compression, gemLine("g8", 120_000, "gemma-4-31b-it")}, event: AfterTool, ord: 2, warn: true, decodes: 3},
	}
	for _, st := range steps {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(chatOf(st.add...)); err != nil {
			t.Fatal(err)
		}
		f.Close()
		env.ord = st.ord
		payload, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": path, "cwd": cwd,
			"hook_event_name": st.event, "timestamp": "2026-01-01T00:00:03Z", "tool_name": "read_file", "tool_response": map[string]any{"llmContent": "x"}})
		var stdout, stderr bytes.Buffer
		code := runHook(context.Background(), harness.HookCall{Prog: "notesoup hook gemini", Event: st.event,
			Open:  func() (harness.HookEnv, func(), error) { return env, func() {}, nil },
			Stdin: bytes.NewReader(payload), Stdout: &stdout, Stderr: &stderr})
		if code != 0 || stderr.Len() > 0 {
			t.Fatalf("%s: exit %d, stderr %s", st.name, code, stderr.String())
		}
		if env.ordCalls != st.decodes {
			t.Errorf("%s: the decoder was asked for the window %d times in all, want %d", st.name, env.ordCalls, st.decodes)
		}
		if !st.warn {
			if stdout.Len() != 0 {
				t.Fatalf("%s: answered %s, want nothing", st.name, stdout.String())
			}
			continue
		}
		var out hookOutput
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
			t.Fatalf("%s: answer %q is not JSON: %v", st.name, stdout.String(), err)
		}
		ctx := out.HookSpecificOutput.AdditionalContext
		if out.HookSpecificOutput.HookEventName != st.event || !strings.HasPrefix(ctx, "notesoup budget warning:") {
			t.Fatalf("%s: answer %+v, want the budget warning for %s", st.name, out, st.event)
		}
	}
	// The model the chat names is the one the point is resolved for.
	if last := env.models[len(env.models)-1]; last != "gemma-4-31b-it" {
		t.Errorf("limits resolved for model %q, want the chat's gemma-4-31b-it", last)
	}
}

// TestMemoOrdinal: the remembered window holds only while nothing since
// the offset it covers replaces the history; a damaged memo or one past
// the chat's end is not used.
func TestMemoOrdinal(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "session-x.jsonl")
	head := chatOf(chatMeta, gemLine("g1", 10, "m"))
	cases := []struct {
		name, memo, more string
		ord              int
		ok               bool
	}{
		{name: "nothing new", memo: "3 %d\n", ord: 3, ok: true},
		{name: "responses since", memo: "3 %d\n", more: chatOf(userLine, gemLine("g2", 20, "m")), ord: 3, ok: true},
		{name: "a metadata patch since", memo: "3 %d\n", more: chatOf(`{"$set":{"lastUpdated":"x"}}`), ord: 3, ok: true},
		{name: "a replacement since", memo: "3 %d\n", more: chatOf(userLine, `{"$set":{"messages":[]}}`, gemLine("g2", 20, "m"))},
		{name: "a message naming $set", memo: "3 %d\n", more: chatOf(`{"id":"u9","type":"user","content":"{\"$set\":{\"messages\":[]}}"}`), ord: 3, ok: true},
		{name: "past the end", memo: "3 99999\n"},
		{name: "damaged", memo: "three"},
		{name: "negative", memo: "-1 %d\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(path, []byte(head+tc.more), 0o600); err != nil {
				t.Fatal(err)
			}
			memo := filepath.Join(dir, "memo")
			text := tc.memo
			if strings.Contains(text, "%d") {
				text = fmt.Sprintf(text, len(head))
			}
			if err := os.WriteFile(memo, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			ord, ok := memoOrdinal(memo, path, int64(len(head+tc.more)))
			if ok != tc.ok || ord != tc.ord {
				t.Fatalf("memoOrdinal = %d, %v; want %d, %v", ord, ok, tc.ord, tc.ok)
			}
		})
	}
}

// TestBudgetWarningRefuses: a payload naming a file outside Gemini's chat
// folder is refused (exit 1, never 2, which would block the tool), and
// nothing is read or marked.
func TestBudgetWarningRefuses(t *testing.T) {
	gemHome := t.TempDir()
	t.Setenv(envHome, gemHome)
	outside := filepath.Join(t.TempDir(), "session-x.jsonl")
	if err := os.WriteFile(outside, []byte(chatOf(chatMeta, gemLine("g1", testNative, "m"))), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"outside the chat folder": outside,
		"climbing out":            filepath.Join(gemHome, ".gemini", "tmp", "..", "..", "session-x.jsonl"),
		"relative":                "tmp/session-x.jsonl",
	}
	for name, p := range cases {
		t.Run(name, func(t *testing.T) {
			env := &fakeEnv{state: t.TempDir()}
			payload, _ := json.Marshal(map[string]any{"session_id": "abc-1", "transcript_path": p, "cwd": gemHome, "hook_event_name": AfterTool})
			var stdout, stderr bytes.Buffer
			code := runHook(context.Background(), harness.HookCall{Prog: "notesoup hook gemini", Event: AfterTool,
				Open:  func() (harness.HookEnv, func(), error) { return env, func() {}, nil },
				Stdin: bytes.NewReader(payload), Stdout: &stdout, Stderr: &stderr})
			if code != 1 || stdout.Len() != 0 || !strings.Contains(stderr.String(), "transcript_path") {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1 naming transcript_path", code, stdout.String(), stderr.String())
			}
			if env.ordCalls != 0 {
				t.Errorf("the window was looked up for a refused payload")
			}
		})
	}
}

// TestWarningText: the warning is true for Gemini: no reset tool, Gemini's
// own compression, the notes tools by the names Gemini gives them, and the
// countdown to Gemini's point.
func TestWarningText(t *testing.T) {
	text := warningText(testWarning, testNative)
	for _, want := range []string{"notesoup budget warning", "Gemini CLI will compress it on its own", "notesoup cannot empty a Gemini window",
		"mcp_notesoup_notes_write", "mcp_notesoup_notes_edit", "About " + reset.GroupDigits(testNative-testWarning) + " tokens left before Gemini compresses."} {
		if !strings.Contains(text, want) {
			t.Errorf("warning lacks %q:\n%s", want, text)
		}
	}
	for _, bad := range []string{"empty_brain", "Reset tool", "reset the window yourself", "notesoup will empty it"} {
		if strings.Contains(text, bad) {
			t.Errorf("warning says %q, untrue for Gemini:\n%s", bad, text)
		}
	}
	if !strings.HasSuffix(warningText(testNative+1, testNative), "About 0 tokens left before Gemini compresses.") {
		t.Errorf("past the point the countdown is not 0")
	}
}
