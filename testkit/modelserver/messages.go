package modelserver

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Message is one entry of a recorded model request's conversation, in a
// protocol-neutral form for assertions such as "the request after a reset
// carries the boot block and none of the old conversation".
type Message struct {
	// Role is "system", "user", "assistant" or "tool" (a tool result).
	// Anthropic tool_result blocks and Responses *_output items become
	// "tool"; developer messages become "system".
	Role string
	// Text is the message's text: text blocks joined by newlines; for a
	// tool call "call NAME ARGS"; for a tool result its output text.
	Text string
}

// Messages returns the conversation a model request carried, system prompt
// first (when the protocol has a separate one). It returns an error for
// requests that are not model requests or whose body does not parse.
func (r Request) Messages() ([]Message, error) {
	switch r.Protocol {
	case Anthropic:
		return anthropicMessages(r.Body)
	case Chat:
		return chatMessages(r.Body)
	case Responses:
		return responsesMessages(r.Body)
	case Gemini:
		return geminiMessages(r.Body)
	default:
		return nil, fmt.Errorf("modelserver: request %d (%s %s) is not a model request", r.Seq, r.Method, r.Path)
	}
}

// Text returns all message texts of the request joined by newlines, or ""
// when it is not a model request.
func (r Request) Text() string {
	msgs, err := r.Messages()
	if err != nil {
		return ""
	}
	parts := make([]string, len(msgs))
	for i, m := range msgs {
		parts[i] = m.Text
	}
	return strings.Join(parts, "\n")
}

// block is a content block of any of the protocols.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	Content   json.RawMessage `json:"content"`
	Thinking  string          `json:"thinking"`
	ToolUseID string          `json:"tool_use_id"`
}

func anthropicMessages(body []byte) ([]Message, error) {
	var req struct {
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("modelserver: anthropic body: %w", err)
	}
	var out []Message
	if sys := textOf(req.System); sys != "" {
		out = append(out, Message{Role: "system", Text: sys})
	}
	for _, m := range req.Messages {
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			out = append(out, Message{Role: m.Role, Text: s})
			continue
		}
		var blocks []block
		if err := json.Unmarshal(m.Content, &blocks); err != nil {
			return nil, fmt.Errorf("modelserver: anthropic message content: %w", err)
		}
		// Text blocks of one message stay together; each tool_use and
		// tool_result becomes its own entry so assertions can tell them
		// apart.
		var text []string
		flush := func() {
			if len(text) > 0 {
				out = append(out, Message{Role: m.Role, Text: strings.Join(text, "\n")})
				text = nil
			}
		}
		for _, b := range blocks {
			switch b.Type {
			case "text":
				text = append(text, b.Text)
			case "thinking":
				text = append(text, b.Thinking)
			case "tool_use":
				flush()
				out = append(out, Message{Role: m.Role, Text: "call " + b.Name + " " + string(b.Input)})
			case "tool_result":
				flush()
				out = append(out, Message{Role: "tool", Text: textOf(b.Content)})
			}
		}
		flush()
	}
	return out, nil
}

func chatMessages(body []byte) ([]Message, error) {
	var req struct {
		Messages []struct {
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("modelserver: chat body: %w", err)
	}
	var out []Message
	for _, m := range req.Messages {
		role := m.Role
		if role == "developer" {
			role = "system"
		}
		if t := textOf(m.Content); t != "" || len(m.ToolCalls) == 0 {
			out = append(out, Message{Role: role, Text: t})
		}
		for _, c := range m.ToolCalls {
			out = append(out, Message{Role: role, Text: "call " + c.Function.Name + " " + c.Function.Arguments})
		}
	}
	return out, nil
}

func responsesMessages(body []byte) ([]Message, error) {
	var req struct {
		Instructions string          `json:"instructions"`
		Input        json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("modelserver: responses body: %w", err)
	}
	var out []Message
	if req.Instructions != "" {
		out = append(out, Message{Role: "system", Text: req.Instructions})
	}
	var single string
	if json.Unmarshal(req.Input, &single) == nil {
		return append(out, Message{Role: "user", Text: single}), nil
	}
	var items []struct {
		Type      string          `json:"type"`
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		Name      string          `json:"name"`
		Namespace string          `json:"namespace"`
		Arguments string          `json:"arguments"`
		Input     string          `json:"input"`
		Output    json.RawMessage `json:"output"`
		Summary   []block         `json:"summary"`
	}
	if len(req.Input) > 0 {
		if err := json.Unmarshal(req.Input, &items); err != nil {
			return nil, fmt.Errorf("modelserver: responses input: %w", err)
		}
	}
	for _, it := range items {
		switch it.Type {
		case "message", "":
			role := it.Role
			if role == "developer" {
				role = "system"
			}
			out = append(out, Message{Role: role, Text: textOf(it.Content)})
		case "function_call":
			name := it.Name
			if it.Namespace != "" {
				name = it.Namespace + "__" + it.Name
			}
			out = append(out, Message{Role: "assistant", Text: "call " + name + " " + it.Arguments})
		case "custom_tool_call":
			out = append(out, Message{Role: "assistant", Text: "call " + it.Name + " " + it.Input})
		case "function_call_output", "custom_tool_call_output":
			out = append(out, Message{Role: "tool", Text: textOf(it.Output)})
		case "reasoning":
			var parts []string
			for _, s := range it.Summary {
				parts = append(parts, s.Text)
			}
			out = append(out, Message{Role: "assistant", Text: strings.Join(parts, "\n")})
		}
	}
	return out, nil
}
