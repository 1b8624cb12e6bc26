package codex

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/notesoup/notesoup/shared/history"
)

// recKind is what one rollout line contributes to the projection.
type recKind uint8

const (
	recNone        recKind = iota // allocates nothing (metadata, reasoning, unknown)
	recMessage                    // a user or assistant message
	recToolUse                    // function_call, custom_tool_call, local_shell_call
	recToolResult                 // function_call_output, custom_tool_call_output
	recCompacted                  // a `compacted` record: opens the next window
	recMarker                     // context_compacted / ContextCompaction event
	recSessionMeta                // session_meta
	recContext                    // harness context (developer, <environment_context>...)
	recTurnError                  // task_complete with an error: the turn failed
	recSkipped                    // a line over jsonl.MaxLineBytes, skipped
)

// turnFailed prefixes the error Codex recorded for a failed turn
// (task_complete.error, codex.md §4.5), so a failure is visible in history.
const turnFailed = "[turn failed] "

// contextPrefixes start the user-role messages Codex writes itself: the
// environment, AGENTS.md and skills, and a compaction summary handed to the
// next window (codex.md §4.4, §6, §13). They are not the user's words.
var contextPrefixes = []string{
	"<environment_context>",
	"# AGENTS.md instructions",
	"<user_instructions>",
	"<skills_instructions>",
	"Another language model started to solve this problem",
}

// record is one decoded rollout line.
type record struct {
	kind     recKind
	role     history.Role
	text     string
	toolName string
	callID   string
	input    string
	isError  bool
	time     time.Time
	ordinal  int64 // the line's `ordinal`, -1 when absent
	boot     int   // ordinal named by a notesoup boot marker, -1 if none
	// failedCall is the call_id an item_completed event reports as failed.
	failedCall string
	meta       *sessionMeta
}

// envelope is every rollout line (codex.md §3).
type envelope struct {
	Timestamp *string         `json:"timestamp"`
	Ordinal   *int64          `json:"ordinal"`
	Type      *string         `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	Metadata  json.RawMessage `json:"metadata"`
}

// sessionMeta is the payload of session_meta (codex.md §4.1, §7).
type sessionMeta struct {
	ID           string       `json:"id"`
	SessionID    string       `json:"session_id"`
	Timestamp    string       `json:"timestamp"`
	Cwd          string       `json:"cwd"`
	ForkedFromID string       `json:"forked_from_id"`
	HistoryBase  *historyBase `json:"history_base"`
}

// historyBase points a paginated fork at the prefix of its parent it
// inherits without copying.
type historyBase struct {
	ThreadID            string `json:"thread_id"`
	EndOrdinalExclusive *int64 `json:"end_ordinal_exclusive"`
	EndByteOffset       *int64 `json:"end_byte_offset"`
}

func (m *sessionMeta) threadID() string {
	if m.ID != "" {
		return m.ID
	}
	return m.SessionID
}

// itemHead is what every response_item payload is sniffed for first.
type itemHead struct {
	Type string `json:"type"`
}

type messageItem struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type contentItem struct {
	Type string  `json:"type"`
	Text *string `json:"text"`
}

type callItem struct {
	CallID    *string         `json:"call_id"`
	ID        *string         `json:"id"`
	Name      *string         `json:"name"`
	Namespace *string         `json:"namespace"`
	Arguments json.RawMessage `json:"arguments"`
	Input     *string         `json:"input"`
	Action    json.RawMessage `json:"action"`
	Output    json.RawMessage `json:"output"`
}

type lineMetadata struct {
	CompactionOutput bool `json:"compaction_output"`
}

type compactedPayload struct {
	Message *string `json:"message"`
}

type eventPayload struct {
	Type  string         `json:"type"`
	Item  *completedItem `json:"item"`
	Error *turnError     `json:"error"`
}

// completedItem is item_completed.item (codex.md §4.5): its id is the
// call_id of tool items, and its status says whether the tool failed.
type completedItem struct {
	Type   string  `json:"type"`
	ID     *string `json:"id"`
	Status *string `json:"status"`
	Result *struct {
		IsError bool `json:"isError"`
	} `json:"result"`
}

// turnError is task_complete.error.
type turnError struct {
	Message *string `json:"message"`
}

// parseRecord decodes one committed line. withText says whether text is
// wanted (the emitting pass) or only the shape (the indexing pass). An error
// is a refusal reason for this line.
func parseRecord(line []byte, withText bool) (record, error) {
	return parseRecordOf(line, withText, false)
}

// parseRecordOf is parseRecord; trusted says the line was parsed before
// from these very bytes (the emitting pass over a rollout read once), so
// its strings need not be checked again (jsonscan.Scanner.Trusted).
func parseRecordOf(line []byte, withText, trusted bool) (record, error) {
	if r, ok := parseRecordFastOf(line, withText, trusted); ok {
		return r, nil
	}
	return parseRecordGeneral(line, withText)
}

// parseRecordGeneral decodes any line, payload by payload type, and words
// the refusal of an invalid one.
func parseRecordGeneral(line []byte, withText bool) (record, error) {
	r := record{ordinal: -1, boot: -1}
	var env envelope
	if err := json.Unmarshal(line, &env); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) || !json.Valid(line) {
			return r, fmt.Errorf("malformed JSON (%v)", err)
		}
		return r, fmt.Errorf("not a rollout line: %v", err)
	}
	if env.Type == nil {
		return r, nil // not a record of any generation this decoder knows
	}
	if env.Ordinal != nil {
		r.ordinal = *env.Ordinal
	}
	if env.Timestamp != nil {
		r.time, _ = time.Parse(time.RFC3339Nano, *env.Timestamp)
	}
	switch *env.Type {
	case "session_meta":
		var m sessionMeta
		if err := json.Unmarshal(env.Payload, &m); err != nil {
			return r, fmt.Errorf("invalid session_meta payload (%v)", err)
		}
		r.kind, r.meta = recSessionMeta, &m
	case "response_item":
		return parseItem(r, env.Payload, env.Metadata, withText)
	case "compacted":
		var c compactedPayload
		if err := json.Unmarshal(env.Payload, &c); err != nil {
			return r, fmt.Errorf("invalid compacted payload (%v)", err)
		}
		r.kind, r.role = recCompacted, history.RoleSystem
		if c.Message != nil {
			r.text = *c.Message
			r.boot = bootOrdinal(r.text)
			if !withText {
				r.text = ""
			}
		}
	case "event_msg":
		var ev eventPayload
		if json.Unmarshal(env.Payload, &ev) != nil {
			return r, nil // events are harness chatter; an odd one hides nothing
		}
		eventRecord(&r, ev.Type, ev.Item, ev.Error, withText)
	}
	return r, nil
}

// parseItem decodes a response_item payload (codex.md §4.4, §5).
func parseItem(r record, payload, metadata json.RawMessage, withText bool) (record, error) {
	var head itemHead
	if err := json.Unmarshal(payload, &head); err != nil {
		return r, fmt.Errorf("response_item payload is not an object with a string type (%v)", err)
	}
	switch head.Type {
	case "message":
		var m messageItem
		if err := json.Unmarshal(payload, &m); err != nil {
			return r, fmt.Errorf("invalid message item (%v)", err)
		}
		text, err := contentText(m.Content, "message content")
		if err != nil {
			return r, err
		}
		switch m.Role {
		case "assistant":
			var md lineMetadata
			if len(metadata) > 0 && json.Unmarshal(metadata, &md) == nil && md.CompactionOutput {
				r.kind = recContext // the summary; the `compacted` record shows it
				return r, nil
			}
			r.kind, r.role = recMessage, history.RoleAssistant
		case "user":
			r.kind, r.role = recMessage, history.RoleUser
			trimmed := strings.TrimLeft(text, " \t\r\n")
			for _, p := range contextPrefixes {
				if strings.HasPrefix(trimmed, p) {
					r.kind = recContext
					break
				}
			}
		default: // developer, system and future roles: harness context
			r.kind = recContext
		}
		if r.kind == recContext {
			r.boot = bootOrdinal(text)
			return r, nil
		}
		if withText {
			r.text = text
		}
	case "function_call", "custom_tool_call", "local_shell_call":
		var c callItem
		if err := json.Unmarshal(payload, &c); err != nil {
			return r, fmt.Errorf("invalid %s item (%v)", head.Type, err)
		}
		r.kind, r.role = recToolUse, history.RoleTool
		switch head.Type {
		case "local_shell_call":
			// call_id is optional here; the item id stands in for it.
			if c.CallID != nil && *c.CallID != "" {
				r.callID = *c.CallID
			} else if c.ID != nil {
				r.callID = *c.ID
			}
			r.toolName = "local_shell"
			if withText {
				r.input = shellCommand(c.Action)
			}
			return r, nil
		case "function_call":
			if withText {
				r.input = argumentsText(c.Arguments)
			}
		case "custom_tool_call":
			if withText && c.Input != nil {
				r.input = *c.Input
			}
		}
		if c.CallID == nil || *c.CallID == "" {
			return r, fmt.Errorf("%s has no string \"call_id\"", head.Type)
		}
		if c.Name == nil || *c.Name == "" {
			return r, fmt.Errorf("%s %s has no string \"name\"", head.Type, *c.CallID)
		}
		r.callID, r.toolName = *c.CallID, *c.Name
		if c.Namespace != nil && *c.Namespace != "" {
			// Namespaced MCP naming (0.169+): the flat name hooks see.
			r.toolName = *c.Namespace + "__" + *c.Name
		}
	case "function_call_output", "custom_tool_call_output":
		var c callItem
		if err := json.Unmarshal(payload, &c); err != nil {
			return r, fmt.Errorf("invalid %s item (%v)", head.Type, err)
		}
		if c.CallID == nil || *c.CallID == "" {
			return r, fmt.Errorf("%s has no string \"call_id\"", head.Type)
		}
		text, isErr, err := outputText(c.Output)
		if err != nil {
			return r, fmt.Errorf("%s %s: %v", head.Type, *c.CallID, err)
		}
		r.kind, r.role, r.callID, r.isError = recToolResult, history.RoleTool, *c.CallID, isErr
		if withText {
			r.text = text
		}
	}
	return r, nil
}

// contentText joins the text items (input_text, output_text, text) of a
// message's content; images and unknown items show nothing.
func contentText(content json.RawMessage, what string) (string, error) {
	content = bytes.TrimSpace(content)
	if len(content) == 0 || string(content) == "null" {
		return "", nil
	}
	if content[0] == '"' { // not written by Codex, but plainly text
		var s string
		if err := json.Unmarshal(content, &s); err != nil {
			return "", fmt.Errorf("%s: %v", what, err)
		}
		return s, nil
	}
	if content[0] != '[' {
		return "", fmt.Errorf("%s is not an array of content items", what)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(content, &items); err != nil {
		return "", fmt.Errorf("%s: %v", what, err)
	}
	var sb strings.Builder
	for i, raw := range items {
		var it contentItem
		if err := json.Unmarshal(raw, &it); err != nil {
			var t struct {
				Type string `json:"type"`
			}
			if json.Unmarshal(raw, &t) == nil && !isTextItem(t.Type) {
				continue // an unknown item with fields of its own
			}
			return "", fmt.Errorf("%s item %d: %v", what, i, err)
		}
		if !isTextItem(it.Type) {
			continue
		}
		if it.Text == nil {
			return "", fmt.Errorf("%s item %d (%s) has no string \"text\"", what, i, it.Type)
		}
		if *it.Text == "" {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteString("\n")
		}
		sb.WriteString(*it.Text)
	}
	return sb.String(), nil
}

func isTextItem(t string) bool {
	return t == "input_text" || t == "output_text" || t == "text"
}

// outputText reads a tool output: a string, an array of content items, or
// the older {content, success} object.
func outputText(raw json.RawMessage) (string, bool, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false, nil
	}
	switch raw[0] {
	case '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, false, err
	case '[':
		s, err := contentText(raw, "output")
		return s, false, err
	case '{':
		var o struct {
			Content json.RawMessage `json:"content"`
			Success *bool           `json:"success"`
		}
		if err := json.Unmarshal(raw, &o); err != nil {
			return "", false, err
		}
		s, err := outputTextContent(o.Content)
		return s, o.Success != nil && !*o.Success, err
	}
	return "", false, errors.New(`"output" is neither a string, an array nor an object`)
}

func outputTextContent(raw json.RawMessage) (string, error) {
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '{' {
		return "", errors.New(`"output.content" is an object`)
	}
	s, _, err := outputText(raw)
	return s, err
}

// argumentsText renders function_call arguments: Codex stores them as a JSON
// string holding JSON; an object is compacted.
func argumentsText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			var buf bytes.Buffer
			if json.Compact(&buf, []byte(s)) == nil {
				return buf.String()
			}
			return s
		}
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) == nil {
		return buf.String()
	}
	return string(raw)
}

// shellCommand renders a local_shell_call action as a command line.
func shellCommand(action json.RawMessage) string {
	var a struct {
		Command []string `json:"command"`
	}
	if json.Unmarshal(action, &a) != nil || len(a.Command) == 0 {
		return argumentsText(action)
	}
	return strings.Join(a.Command, " ")
}

// bootOrdinal returns the ordinal a notesoup boot marker for Codex names in
// text Codex or notesoup injected (never in the user's own messages), or -1.
func bootOrdinal(text string) int {
	if !strings.Contains(text, "notesoup-boot") {
		return -1
	}
	harness, _, ord, ok := history.ParseBootMarker(text)
	if !ok || harness != Name {
		return -1
	}
	return ord
}

// fastLine is a rollout line with the payload fields of every record the
// projection uses decoded in the same scan. Lines it cannot take (mistyped
// or unexpected fields, session_meta) go to the general path, which also
// words refusals.
type fastLine struct {
	Timestamp *string       `json:"timestamp"`
	Ordinal   *int64        `json:"ordinal"`
	Type      *string       `json:"type"`
	Payload   *fastPayload  `json:"payload"`
	Metadata  *lineMetadata `json:"metadata"`
}

type fastPayload struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   []contentItem   `json:"content"`
	CallID    *string         `json:"call_id"`
	ID        *string         `json:"id"`
	Name      *string         `json:"name"`
	Namespace *string         `json:"namespace"`
	Arguments json.RawMessage `json:"arguments"`
	Input     *string         `json:"input"`
	Action    json.RawMessage `json:"action"`
	Output    any             `json:"output"`
	Message   *string         `json:"message"`
	Item      *completedItem  `json:"item"`
	Error     *turnError      `json:"error"`
}

// parseRecordFast decodes the common, valid shapes; ok is false for
// anything else, including anything that would be refused.
func parseRecordFast(line []byte, withText bool) (record, bool) {
	return parseRecordFastOf(line, withText, false)
}

// parseRecordFastOf is parseRecordFast with parseRecordOf's trusted.
func parseRecordFastOf(line []byte, withText, trusted bool) (record, bool) {
	r := record{ordinal: -1, boot: -1}
	l, ok := scanLineOf(line, withText, true, trusted)
	if !ok {
		// Shapes the single-pass scanner leaves alone (output arrays and
		// objects, escaped or case-folded keys, duplicates) or invalid
		// lines: encoding/json decides, as before.
		l = fastLine{}
		if json.Unmarshal(line, &l) != nil {
			return r, false
		}
	}
	if l.Type == nil || l.Payload == nil {
		return r, false
	}
	if l.Ordinal != nil {
		r.ordinal = *l.Ordinal
	}
	if l.Timestamp != nil {
		r.time, _ = time.Parse(time.RFC3339Nano, *l.Timestamp)
	}
	p := l.Payload
	switch *l.Type {
	case "session_meta":
		// Often tens of KiB of instructions: scanned once more for its
		// own fields rather than decoded by encoding/json three times.
		return scanMetaLine(line, trusted)
	case "compacted":
		r.kind, r.role = recCompacted, history.RoleSystem
		if p.Message != nil {
			r.text = *p.Message
			r.boot = bootOrdinal(r.text)
			if !withText {
				r.text = ""
			}
		}
	case "event_msg":
		eventRecord(&r, p.Type, p.Item, p.Error, withText)
	case "response_item":
		return fastItem(r, p, l.Metadata, withText)
	}
	return r, true
}

// fastItem mirrors parseItem over an already decoded payload.
func fastItem(r record, p *fastPayload, md *lineMetadata, withText bool) (record, bool) {
	switch p.Type {
	case "message":
		text, ok := itemsText(p.Content)
		if !ok {
			return r, false
		}
		switch p.Role {
		case "assistant":
			if md != nil && md.CompactionOutput {
				r.kind = recContext
				return r, true
			}
			r.kind, r.role = recMessage, history.RoleAssistant
		case "user":
			r.kind, r.role = recMessage, history.RoleUser
			trimmed := strings.TrimLeft(text, " \t\r\n")
			for _, pre := range contextPrefixes {
				if strings.HasPrefix(trimmed, pre) {
					r.kind = recContext
					break
				}
			}
		default:
			r.kind = recContext
		}
		if r.kind == recContext {
			r.boot = bootOrdinal(text)
			return r, true
		}
		if withText {
			r.text = text
		}
	case "function_call", "custom_tool_call":
		if p.CallID == nil || *p.CallID == "" || p.Name == nil || *p.Name == "" {
			return r, false
		}
		r.kind, r.role, r.callID, r.toolName = recToolUse, history.RoleTool, *p.CallID, *p.Name
		if p.Namespace != nil && *p.Namespace != "" {
			r.toolName = *p.Namespace + "__" + *p.Name
		}
		if withText {
			if p.Type == "function_call" {
				r.input = argumentsText(p.Arguments)
			} else if p.Input != nil {
				r.input = *p.Input
			}
		}
	case "function_call_output", "custom_tool_call_output":
		if p.CallID == nil || *p.CallID == "" {
			return r, false
		}
		text, isErr, ok := anyOutputText(p.Output)
		if !ok {
			return r, false
		}
		r.kind, r.role, r.callID, r.isError = recToolResult, history.RoleTool, *p.CallID, isErr
		if withText {
			r.text = text
		}
	case "local_shell_call":
		return r, false // rare: the general path
	}
	return r, true
}

// itemsText mirrors contentText over decoded items.
func itemsText(items []contentItem) (string, bool) {
	var j joined
	for _, it := range items {
		if !isTextItem(it.Type) {
			continue
		}
		if it.Text == nil {
			return "", false
		}
		j.add(*it.Text)
	}
	return j.String(), true
}

// joined joins non-empty texts with newlines, without copying when there
// is only one (the usual message or tool output).
type joined struct {
	one string
	sb  strings.Builder
	n   int
}

func (j *joined) add(s string) {
	if s == "" {
		return
	}
	switch j.n {
	case 0:
		j.one = s
	case 1:
		j.sb.Grow(len(j.one) + 1 + len(s))
		j.sb.WriteString(j.one)
		fallthrough
	default:
		j.sb.WriteString("\n")
		j.sb.WriteString(s)
	}
	j.n++
}

func (j *joined) String() string {
	if j.n <= 1 {
		return j.one
	}
	return j.sb.String()
}

// anyOutputText mirrors outputText over a decoded output.
func anyOutputText(v any) (string, bool, bool) {
	switch o := v.(type) {
	case nil:
		return "", false, true
	case string:
		return o, false, true
	case []any:
		s, ok := anyItemsText(o)
		return s, false, ok
	case map[string]any:
		isErr := false
		if sv, present := o["success"]; present && sv != nil {
			b, ok := sv.(bool)
			if !ok {
				return "", false, false
			}
			isErr = !b
		}
		switch c := o["content"].(type) {
		case nil:
			return "", isErr, true
		case string:
			return c, isErr, true
		case []any:
			s, ok := anyItemsText(c)
			return s, isErr, ok
		}
	}
	return "", false, false
}

func anyItemsText(items []any) (string, bool) {
	var sb strings.Builder
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return "", false
		}
		typ, _ := m["type"].(string)
		if !isTextItem(typ) {
			if _, isStr := m["type"].(string); !isStr && m["type"] != nil {
				return "", false
			}
			continue
		}
		text, ok := m["text"].(string)
		if !ok {
			return "", false
		}
		if text == "" {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteString("\n")
		}
		sb.WriteString(text)
	}
	return sb.String(), true
}

// eventRecord classifies the event_msg payloads the projection uses:
// compaction markers and failed turns.
func eventRecord(r *record, typ string, item *completedItem, terr *turnError, withText bool) {
	switch {
	case typ == "context_compacted" || (typ == "item_completed" && item != nil && item.Type == "ContextCompaction"):
		r.kind, r.role = recMarker, history.RoleSystem
	case typ == "item_completed" && item != nil && item.ID != nil && *item.ID != "":
		// A tool item completed; Codex writes it before the output line,
		// which then carries the failure (codex.md §5).
		failed := item.Status != nil && (*item.Status == "failed" || *item.Status == "declined")
		if failed || (item.Result != nil && item.Result.IsError) {
			r.failedCall = *item.ID
		}
	case typ == "task_complete" && terr != nil && terr.Message != nil && *terr.Message != "":
		r.kind, r.role = recTurnError, history.RoleSystem
		if withText {
			r.text = turnFailed + *terr.Message
		}
	}
}
