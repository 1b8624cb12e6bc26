package modelserver

import (
	"encoding/json"
	"net/http"
	"strings"
)

// Protocol names a wire protocol the server speaks.
type Protocol string

// The protocols, one per agent family.
const (
	// Anthropic is the Messages API (POST /v1/messages), used by Claude Code.
	Anthropic Protocol = "anthropic"
	// Chat is OpenAI chat-completions (POST /v1/chat/completions), used by Pi.
	Chat Protocol = "chat"
	// Responses is the OpenAI Responses API (POST /v1/responses), used by Codex.
	Responses Protocol = "responses"
	// Aux marks auxiliary requests (model lists, count_tokens, probes).
	Aux Protocol = "aux"
)

func (p Protocol) valid() bool { return p == Anthropic || p == Chat || p == Responses || p == Gemini }

// view is the protocol-neutral reading of a model request that rules match
// against.
type view struct {
	protocol         Protocol
	body             []byte
	header           http.Header
	model            string
	stream           bool
	system           string
	lastUserText     string
	lastIsToolResult bool
	// includeUsage is chat's stream_options.include_usage.
	includeUsage bool
}

// textOf concatenates the text of a content value that is either a string or
// a list of blocks with a "text" field, keeping only blocks whose type is in
// types (all text-bearing blocks when types is empty).
func textOf(raw json.RawMessage, types ...string) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var b strings.Builder
	for _, bl := range blocks {
		if len(types) > 0 && !contains(types, bl.Type) {
			continue
		}
		if bl.Text == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(bl.Text)
	}
	return b.String()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// parseAnthropic reads a Messages request. Claude Code interleaves
// role:"system" messages in messages, so the last user message is searched
// for rather than taken from the end; a tool result is a user message whose
// blocks include tool_result.
func parseAnthropic(body []byte, h http.Header) (*view, error) {
	var req struct {
		Model    string          `json:"model"`
		Stream   bool            `json:"stream"`
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	v := &view{protocol: Anthropic, body: body, header: h, model: req.Model, stream: req.Stream, system: textOf(req.System)}
	lastUser := true
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != "user" {
			continue
		}
		if lastUser {
			var blocks []struct {
				Type string `json:"type"`
			}
			if json.Unmarshal(m.Content, &blocks) == nil {
				for _, b := range blocks {
					if b.Type == "tool_result" {
						v.lastIsToolResult = true
					}
				}
			}
			lastUser = false
		}
		// A message of tool results only has no text; like chat's tool
		// messages it does not count as "the last user message".
		if t := textOf(m.Content, "text"); t != "" {
			v.lastUserText = t
			break
		}
	}
	return v, nil
}

// parseChat reads a chat-completions request.
func parseChat(body []byte, h http.Header) (*view, error) {
	var req struct {
		Model         string `json:"model"`
		Stream        bool   `json:"stream"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	v := &view{protocol: Chat, body: body, header: h, model: req.Model, stream: req.Stream, includeUsage: req.StreamOptions.IncludeUsage}
	var sys []string
	for _, m := range req.Messages {
		if m.Role == "system" || m.Role == "developer" {
			sys = append(sys, textOf(m.Content))
		}
	}
	v.system = strings.Join(sys, "\n")
	// Pi sends images from a tool result as an extra user message after the
	// tool message, so "last is tool result" looks past such a message.
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role == "tool" {
			v.lastIsToolResult = true
			break
		}
		if m.Role == "user" {
			if !strings.HasPrefix(textOf(m.Content), "Attached image(s) from tool result") {
				break
			}
		}
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			v.lastUserText = textOf(req.Messages[i].Content)
			break
		}
	}
	return v, nil
}

// parseResponses reads a Responses request. input is a list of items;
// message items carry role and content, tool outputs are
// function_call_output / custom_tool_call_output items.
func parseResponses(body []byte, h http.Header) (*view, error) {
	var req struct {
		Model        string          `json:"model"`
		Stream       bool            `json:"stream"`
		Instructions string          `json:"instructions"`
		Input        json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	v := &view{protocol: Responses, body: body, header: h, model: req.Model, stream: req.Stream}
	var items []struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	var single string
	if json.Unmarshal(req.Input, &single) == nil {
		v.lastUserText = single
		v.system = req.Instructions
		return v, nil
	}
	if len(req.Input) > 0 {
		if err := json.Unmarshal(req.Input, &items); err != nil {
			return nil, err
		}
	}
	sys := []string{}
	if req.Instructions != "" {
		sys = append(sys, req.Instructions)
	}
	for _, it := range items {
		if (it.Type == "message" || it.Type == "") && (it.Role == "developer" || it.Role == "system") {
			sys = append(sys, textOf(it.Content))
		}
	}
	v.system = strings.Join(sys, "\n")
	if n := len(items); n > 0 {
		switch items[n-1].Type {
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output", "mcp_call_output":
			v.lastIsToolResult = true
		}
	}
	for i := len(items) - 1; i >= 0; i-- {
		it := items[i]
		if (it.Type == "message" || it.Type == "") && it.Role == "user" {
			v.lastUserText = textOf(it.Content)
			break
		}
	}
	return v, nil
}
