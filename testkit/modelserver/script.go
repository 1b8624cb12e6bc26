// Package modelserver is a scripted fake model API for tests and recordings.
//
// It binds 127.0.0.1 only and speaks the wire protocols the supported
// coding agents use: Anthropic Messages (Claude Code), OpenAI
// chat-completions (Pi), OpenAI Responses (Codex) and the Gemini API's
// generateContent (Gemini CLI), streaming (SSE) and not. What it answers is decided by a Script: rules matched against the
// request first (for out-of-band requests such as compaction summaries), then
// an ordered list of turns consumed one per request. Every request body is
// recorded, in memory and optionally as a JSONL log, so tests can assert what
// an agent sent.
package modelserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Script is what the server plays. Rules are tried first, in order; the
// first matching rule answers and the turn cursor does not move. Otherwise
// the next unconsumed turn answers. When the turns are used up, Exhausted
// answers (or a fixed notice) and the request is reported by Server.Problems.
type Script struct {
	// Name labels the script in logs.
	Name string `json:"name,omitempty"`
	// Model is the model id echoed in replies and model lists when the
	// request names none. Defaults to DefaultModel.
	Model string `json:"model,omitempty"`
	// Usage is the usage reported for replies that set none.
	Usage Usage `json:"usage,omitempty"`
	// Rules answer requests that match them, before turns are consulted.
	Rules []Rule `json:"rules,omitempty"`
	// Turns are consumed in order, one per unmatched request.
	Turns []Reply `json:"turns"`
	// Exhausted answers requests that arrive after the last turn.
	Exhausted *Reply `json:"exhausted,omitempty"`
}

// DefaultModel is the model id replies carry when neither the request nor
// the script names one.
const DefaultModel = "fake-model"

// defaultInputTokens and defaultOutputTokens are the usage reported when a
// script sets none: fixed rather than estimated from the body so recordings
// are reproducible (bodies carry dates and temp paths).
const (
	defaultInputTokens  = 1000
	defaultOutputTokens = 10
)

// exhaustedText is the reply once the script has no turns left. It ends the
// agent's turn (plain text, no tool call), so a runaway agent stops instead
// of looping.
const exhaustedText = "modelserver: script exhausted"

// Rule answers every request its Match accepts, up to Times times.
type Rule struct {
	// Name labels the rule in the request log.
	Name string `json:"name,omitempty"`
	// Match selects the requests this rule answers.
	Match Match `json:"match"`
	// Reply is what the rule answers.
	Reply Reply `json:"reply"`
	// Times limits how often the rule fires; 0 means no limit.
	Times int `json:"times,omitempty"`
}

// Match selects requests. Every non-empty field must hold (logical AND); an
// empty Match matches everything.
type Match struct {
	// Protocol restricts the match to one wire protocol.
	Protocol Protocol `json:"protocol,omitempty"`
	// LastUserContains must be a substring of the text of the last user
	// message that has text (text blocks only): a message holding only
	// tool results is skipped, as chat and Responses keep those in
	// separate tool messages/items.
	LastUserContains string `json:"last_user_contains,omitempty"`
	// SystemContains must be a substring of the system prompt (Anthropic
	// system field, chat system/developer messages, Responses instructions
	// and developer messages).
	SystemContains string `json:"system_contains,omitempty"`
	// BodyContains must be a substring of the raw request body.
	BodyContains string `json:"body_contains,omitempty"`
	// HeaderContains maps a header name to a substring its value must hold,
	// e.g. {"x-codex-turn-metadata": "compaction"}.
	HeaderContains map[string]string `json:"header_contains,omitempty"`
	// LastIsToolResult, when set, requires the last message to be (true) or
	// not to be (false) a tool result.
	LastIsToolResult *bool `json:"last_is_tool_result,omitempty"`
}

// Reply is one model response: optional thinking, optional text, and zero
// or more tool calls (several calls are sent as parallel calls in one
// response). Error, when set, replaces all of it with an HTTP error.
type Reply struct {
	// Thinking is sent as a thinking/reasoning block before the text.
	Thinking string `json:"thinking,omitempty"`
	// Text is the assistant text.
	Text string `json:"text,omitempty"`
	// ToolCalls are requested in this order, in one response.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Usage overrides the script's usage for this reply.
	Usage *Usage `json:"usage,omitempty"`
	// Error makes the server answer with an HTTP error instead.
	Error *HTTPError `json:"error,omitempty"`
}

// ToolCall is one tool invocation the model requests.
type ToolCall struct {
	// ID is the call id; empty means a deterministic id is generated from
	// the request sequence number (toolu_… for Anthropic, call_… otherwise).
	ID string `json:"id,omitempty"`
	// Name is the tool name as the agent advertised it.
	Name string `json:"name"`
	// Namespace qualifies the name for the Responses protocol (Codex MCP
	// tools are namespace "mcp__<server>", name "<tool>"). Ignored elsewhere.
	Namespace string `json:"namespace,omitempty"`
	// Input is the tool's arguments object.
	Input json.RawMessage `json:"input,omitempty"`
	// Custom sends a Responses custom_tool_call (free-form input, e.g.
	// Codex apply_patch) with CustomInput as its input. Responses only.
	Custom bool `json:"custom,omitempty"`
	// CustomInput is the free-form input of a custom tool call.
	CustomInput string `json:"custom_input,omitempty"`
}

// Usage is the token usage a reply reports.
type Usage struct {
	// InputTokens is the uncached prompt size reported.
	InputTokens int `json:"input_tokens,omitempty"`
	// OutputTokens is the completion size reported.
	OutputTokens int `json:"output_tokens,omitempty"`
	// CacheReadTokens is reported as cached input (Anthropic
	// cache_read_input_tokens, OpenAI cached_tokens).
	CacheReadTokens int `json:"cache_read_tokens,omitempty"`
}

// HTTPError is an error response: Status with a protocol-shaped error body
// carrying Message.
type HTTPError struct {
	// Status is the HTTP status code (e.g. 400, 429, 500).
	Status int `json:"status"`
	// Message is the error text.
	Message string `json:"message"`
}

// LoadScript reads a JSON script from path. ${NAME} references in the file
// are replaced from vars before parsing (so a script can name the run's
// work directory); a reference with no value is an error, not an empty
// string, so a forgotten -var is caught early.
func LoadScript(path string, vars map[string]string) (*Script, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("modelserver: reading script: %w", err)
	}
	s, err := ParseScript(raw, vars)
	if err != nil {
		return nil, fmt.Errorf("modelserver: script %s: %w", path, err)
	}
	return s, nil
}

// ParseScript parses a JSON script after expanding ${NAME} from vars (see
// LoadScript). Values are inserted JSON-escaped, so a path with quotes or
// backslashes cannot break the document.
func ParseScript(raw []byte, vars map[string]string) (*Script, error) {
	var missing []string
	expanded := os.Expand(string(raw), func(name string) string {
		v, ok := vars[name]
		if !ok {
			missing = append(missing, name)
			return ""
		}
		q, _ := json.Marshal(v)
		return string(q[1 : len(q)-1])
	})
	if len(missing) > 0 {
		return nil, fmt.Errorf("undefined variables %s; pass them with -var NAME=value", strings.Join(missing, ", "))
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(expanded)))
	dec.DisallowUnknownFields()
	var s Script
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("invalid JSON script: %w", err)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// Validate reports the first structural problem of the script, naming the
// offending turn or rule.
func (s *Script) Validate() error {
	check := func(where string, r Reply) error {
		if r.Error != nil {
			if r.Error.Status < 400 || r.Error.Status > 599 {
				return fmt.Errorf("%s: error.status %d is not an HTTP error status (400-599)", where, r.Error.Status)
			}
			return nil
		}
		if r.Text == "" && r.Thinking == "" && len(r.ToolCalls) == 0 {
			return fmt.Errorf("%s: reply is empty; give it text, thinking, tool_calls or error", where)
		}
		for i, tc := range r.ToolCalls {
			if tc.Name == "" {
				return fmt.Errorf("%s: tool_calls[%d] has no name", where, i)
			}
			if tc.Custom {
				continue
			}
			if len(tc.Input) > 0 {
				var obj map[string]any
				if err := json.Unmarshal(tc.Input, &obj); err != nil {
					return fmt.Errorf("%s: tool_calls[%d] (%s) input must be a JSON object: %v", where, i, tc.Name, err)
				}
			}
		}
		return nil
	}
	for i, r := range s.Rules {
		if err := check(fmt.Sprintf("rules[%d] %q", i, r.Name), r.Reply); err != nil {
			return err
		}
		if r.Match.Protocol != "" && !r.Match.Protocol.valid() {
			return fmt.Errorf("rules[%d] %q: unknown protocol %q (want anthropic, chat, responses or gemini)", i, r.Name, r.Match.Protocol)
		}
	}
	for i, t := range s.Turns {
		if err := check(fmt.Sprintf("turns[%d]", i), t); err != nil {
			return err
		}
	}
	if s.Exhausted != nil {
		if err := check("exhausted", *s.Exhausted); err != nil {
			return err
		}
	}
	return nil
}

// matches reports whether m accepts the request view v.
func (m Match) matches(v *view) bool {
	if m.Protocol != "" && m.Protocol != v.protocol {
		return false
	}
	if m.LastUserContains != "" && !strings.Contains(v.lastUserText, m.LastUserContains) {
		return false
	}
	if m.SystemContains != "" && !strings.Contains(v.system, m.SystemContains) {
		return false
	}
	if m.BodyContains != "" && !bytes.Contains(v.body, []byte(m.BodyContains)) {
		return false
	}
	for name, want := range m.HeaderContains {
		if !strings.Contains(v.header.Get(name), want) {
			return false
		}
	}
	if m.LastIsToolResult != nil && *m.LastIsToolResult != v.lastIsToolResult {
		return false
	}
	return true
}

// usageFor resolves the usage a reply reports: the reply's own, else the
// script's, else the fixed defaults, field by field.
func (s *Script) usageFor(r Reply) Usage {
	u := s.Usage
	if r.Usage != nil {
		if r.Usage.InputTokens != 0 {
			u.InputTokens = r.Usage.InputTokens
		}
		if r.Usage.OutputTokens != 0 {
			u.OutputTokens = r.Usage.OutputTokens
		}
		if r.Usage.CacheReadTokens != 0 {
			u.CacheReadTokens = r.Usage.CacheReadTokens
		}
	}
	if u.InputTokens == 0 {
		u.InputTokens = defaultInputTokens
	}
	if u.OutputTokens == 0 {
		u.OutputTokens = defaultOutputTokens
	}
	return u
}
