package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// recKind is what one chat line is, tried in the order the Gemini CLI's
// own loader tries them (loadConversationRecord).
type recKind uint8

const (
	recOther    recKind = iota // anything else: ignored, as the CLI ignores it
	recRewind                  // {"$rewindTo": id}
	recMessage                 // a message: "id" is a string
	recSet                     // {"$set": {...}}: a metadata patch
	recMetadata                // sessionId and projectHash: the chat's metadata
)

// line is one parsed chat line.
type line struct {
	kind     recKind
	rewindTo string
	msg      *message
	// messages is $set.messages (or a metadata record's messages): the
	// whole history, replaced; hasMessages tells an empty list from none.
	messages    []message
	hasMessages bool
	sessionID   string
	startTime   string
	lastUpdated string
}

// rawLine is every field a chat line may carry at its top level, read in
// one pass: a message's fields too, kept raw until the line is known to be
// a message.
type rawLine struct {
	RewindTo    json.RawMessage `json:"$rewindTo"`
	Set         json.RawMessage `json:"$set"`
	ID          json.RawMessage `json:"id"`
	SessionID   json.RawMessage `json:"sessionId"`
	ProjectHash json.RawMessage `json:"projectHash"`
	StartTime   json.RawMessage `json:"startTime"`
	LastUpdated json.RawMessage `json:"lastUpdated"`
	Messages    json.RawMessage `json:"messages"`
	Type        json.RawMessage `json:"type"`
	Timestamp   json.RawMessage `json:"timestamp"`
	Content     json.RawMessage `json:"content"`
	ToolCalls   json.RawMessage `json:"toolCalls"`
}

// asMessage makes the message of a line whose id is a string.
func (r *rawLine) asMessage(id string) (message, error) {
	m := message{ID: id, Content: r.Content}
	m.Type, _ = jsonString(r.Type)
	m.Timestamp, _ = jsonString(r.Timestamp)
	if c := bytes.TrimSpace(r.ToolCalls); len(c) > 0 && string(c) != "null" {
		if err := json.Unmarshal(c, &m.ToolCalls); err != nil {
			return message{}, fmt.Errorf("message %q: toolCalls: %v", clip(id), err)
		}
	}
	return m, m.check()
}

// message is one message record (ConversationRecord's MessageRecord).
type message struct {
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []toolCall      `json:"toolCalls"`
}

// toolCall is a call the model made, with its result once it ran.
type toolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Args      json.RawMessage `json:"args"`
	Result    json.RawMessage `json:"result"`
	Status    string          `json:"status"`
	Timestamp string          `json:"timestamp"`
}

// part is a content part (the @google/genai Part) as far as it is shown:
// text, unless it is the model's thought, and function responses.
type part struct {
	Text             *string           `json:"text"`
	Thought          bool              `json:"thought"`
	FunctionResponse *functionResponse `json:"functionResponse"`
}

// functionResponse is a tool's answer as the model receives it.
type functionResponse struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

// parseLine parses one committed chat line. An error is a damaged record:
// not a JSON object, or a known field of the wrong type.
func parseLine(b []byte) (line, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return line{}, errors.New("not a JSON object")
	}
	var r rawLine
	if err := json.Unmarshal(b, &r); err != nil {
		return line{}, fmt.Errorf("not a JSON object: %v", err)
	}
	if s, ok := jsonString(r.RewindTo); ok {
		return line{kind: recRewind, rewindTo: s}, nil
	}
	if id, ok := jsonString(r.ID); ok {
		m, err := r.asMessage(id)
		if err != nil {
			return line{}, err
		}
		return line{kind: recMessage, msg: &m}, nil
	}
	if isObject(r.Set) {
		var set rawLine
		if err := json.Unmarshal(r.Set, &set); err != nil {
			return line{}, fmt.Errorf("$set: %v", err)
		}
		l := line{kind: recSet}
		l.lastUpdated, _ = jsonString(set.LastUpdated)
		return l, l.readMessages(set.Messages, "$set.messages")
	}
	sid, ok1 := jsonString(r.SessionID)
	_, ok2 := jsonString(r.ProjectHash)
	if ok1 && ok2 {
		l := line{kind: recMetadata, sessionID: sid}
		l.startTime, _ = jsonString(r.StartTime)
		l.lastUpdated, _ = jsonString(r.LastUpdated)
		return l, l.readMessages(r.Messages, "messages")
	}
	return line{kind: recOther}, nil
}

// readMessages reads a history list; entries that are not messages (no
// string id) are skipped, as the CLI skips them.
func (l *line) readMessages(raw json.RawMessage, field string) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil // not a list: the CLI ignores it too
	}
	l.hasMessages = true
	for i, it := range items {
		var r rawLine
		if json.Unmarshal(it, &r) != nil {
			continue
		}
		id, ok := jsonString(r.ID)
		if !ok {
			continue
		}
		m, err := r.asMessage(id)
		if err != nil {
			return fmt.Errorf("%s[%d]: %v", field, i, err)
		}
		l.messages = append(l.messages, m)
	}
	return nil
}

// check refuses a message whose content is neither text nor parts, or
// whose tool calls have no id or name: they cannot be shown or paired.
func (m *message) check() error {
	switch c := bytes.TrimSpace(m.Content); {
	case len(c) == 0, c[0] == '"', c[0] == '[', c[0] == '{', string(c) == "null":
	default:
		return fmt.Errorf("message %q: content is neither text nor a list of parts", clip(m.ID))
	}
	for i, tc := range m.ToolCalls {
		if tc.ID == "" || tc.Name == "" {
			return fmt.Errorf("message %q: toolCalls[%d] has no id or no name", clip(m.ID), i)
		}
	}
	return nil
}

// contextPrefixes start the user messages the CLI writes itself (its
// isIgnoredUserContent): the environment it hands the model first and
// hook output. They are not the user's words.
var contextPrefixes = []string{"<session_context>", "<hook_context>"}

// isContext reports whether a user message's text is the CLI's own context.
func isContext(text string) bool {
	t := strings.TrimSpace(text)
	for _, p := range contextPrefixes {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// visibleText is a content's text: a string as it is, or the text parts of
// a list (or of one part) joined as the CLI joins them, thoughts left out.
// responses are the function responses among the parts.
func visibleText(content json.RawMessage) (text string, responses []functionResponse) {
	c := bytes.TrimSpace(content)
	if len(c) == 0 {
		return "", nil
	}
	var parts []part
	switch c[0] {
	case '"':
		var s string
		_ = json.Unmarshal(c, &s)
		return s, nil
	case '{':
		var p part
		if json.Unmarshal(c, &p) != nil {
			return "", nil
		}
		parts = []part{p}
	case '[':
		// A list may mix parts and plain strings (a PartListUnion).
		var items []json.RawMessage
		if json.Unmarshal(c, &items) != nil {
			return "", nil
		}
		for _, it := range items {
			var s string
			if json.Unmarshal(it, &s) == nil {
				parts = append(parts, part{Text: &s})
				continue
			}
			var p part
			if json.Unmarshal(it, &p) == nil {
				parts = append(parts, p)
			}
		}
	}
	var b strings.Builder
	for _, p := range parts {
		if p.FunctionResponse != nil {
			responses = append(responses, *p.FunctionResponse)
		}
		if p.Text != nil && !p.Thought {
			b.WriteString(*p.Text)
		}
	}
	return b.String(), responses
}

// resultText is a tool call's result as text: a string result as it is;
// function responses by their output (or error, then isError), else their
// response JSON; text parts as they are.
func resultText(raw json.RawMessage) (text string, isError bool) {
	c := bytes.TrimSpace(raw)
	if len(c) == 0 || string(c) == "null" {
		return "", false
	}
	if c[0] == '"' {
		var s string
		_ = json.Unmarshal(c, &s)
		return s, false
	}
	t, responses := visibleText(c)
	var out []string
	if t != "" {
		out = append(out, t)
	}
	for _, r := range responses {
		rt, re := responseText(r.Response)
		if rt != "" {
			out = append(out, rt)
		}
		isError = isError || re
	}
	return strings.Join(out, "\n"), isError
}

// responseText is a function response's output, or its error, or else its
// JSON as recorded.
func responseText(raw json.RawMessage) (string, bool) {
	var r struct {
		Output json.RawMessage `json:"output"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(raw, &r) == nil {
		if s, ok := jsonString(r.Output); ok {
			return s, false
		}
		if s, ok := jsonString(r.Error); ok {
			return s, true
		}
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return "", false
	}
	if s := b.String(); s != "null" && s != "{}" {
		return s, false
	}
	return "", false
}

// compactArgs is a call's arguments as recorded, compacted.
func compactArgs(raw json.RawMessage) string {
	var b bytes.Buffer
	if len(raw) == 0 || json.Compact(&b, raw) != nil || b.String() == "null" {
		return ""
	}
	return b.String()
}

func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func isObject(raw json.RawMessage) bool {
	c := bytes.TrimSpace(raw)
	return len(c) > 0 && c[0] == '{'
}

// parseTime reads an RFC 3339 time; zero when absent or malformed.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// clip bounds an id quoted in a refusal.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}
