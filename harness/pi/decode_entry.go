package pi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Pi session format versions this decoder understands (pi.md §3.5). Older
// versions are migrated in memory only; the file is never rewritten.
const (
	versionLinear  = 1 // no id/parentId: entries chain in file order
	versionTree    = 2 // id/parentId tree, message role "hookMessage"
	versionCurrent = 3 // role "hookMessage" renamed "custom"
)

// entryKind is what one tree entry contributes to the projection.
type entryKind uint8

const (
	// kindTreeOnly entries (model_change, label, session_info, custom,
	// unknown types and roles) are linked into the tree but allocate no
	// address and show nothing.
	kindTreeOnly entryKind = iota
	kindUser
	kindAssistant
	kindToolResult
	kindCustomMessage // custom_message entries and legacy custom/hookMessage roles
	kindBash          // bashExecution: the user's "!cmd" and its output
	kindCompaction
	kindBranchSummary
)

// knownEntryTypes are the entry types of pi 0.73.1 (pi.md §3.2). Only these
// are validated; any other type is a future record and is ignored.
var knownEntryTypes = map[string]bool{
	"message": true, "model_change": true, "thinking_level_change": true,
	"compaction": true, "branch_summary": true, "custom": true,
	"custom_message": true, "label": true, "session_info": true,
}

// knownRoles are the message roles whose schema the decoder validates.
var knownRoles = map[string]bool{
	"user": true, "assistant": true, "toolResult": true,
	"bashExecution": true, "custom": true, "hookMessage": true,
}

// toolCall is one toolCall block of an assistant message.
type toolCall struct {
	id, name, args string
}

// entry is one decoded line: its tree links and, in the emitting pass, its
// visible text.
type entry struct {
	typ       string
	id        string
	parentID  string
	hasParent bool // false for roots (parentId null or absent)
	kind      entryKind
	time      time.Time
	text      string
	calls     []toolCall
	resultID  string // toolResult: the toolCallId it answers
	toolName  string // toolResult: the tool's name
	isError   bool   // toolResult: recorded as an error
}

// header is line 1 of a session file.
type header struct {
	Type      string          `json:"type"`
	Version   json.RawMessage `json:"version"`
	ID        json.RawMessage `json:"id"`
	Timestamp string          `json:"timestamp"`
	Cwd       string          `json:"cwd"`
}

// parseHeader validates line 1 and returns the session id and version.
func parseHeader(line []byte) (id string, version int, h header, err error) {
	if err := json.Unmarshal(line, &h); err != nil {
		return "", 0, h, fmt.Errorf("line 1 is not a session header (%v); a Pi session file starts with {\"type\":\"session\",\"id\":...}", err)
	}
	if h.Type != "session" {
		return "", 0, h, fmt.Errorf("line 1 has type %q, not \"session\"; this is not a Pi session file", h.Type)
	}
	if err := json.Unmarshal(h.ID, &id); err != nil || id == "" {
		return "", 0, h, errors.New("session header has no string id")
	}
	version = versionLinear
	if len(h.Version) > 0 && string(h.Version) != "null" {
		if err := json.Unmarshal(h.Version, &version); err != nil {
			return "", 0, h, fmt.Errorf("session header version %s is not an integer", h.Version)
		}
	}
	if version < versionLinear || version > versionCurrent {
		return "", 0, h, fmt.Errorf("session format version %d is not supported (this decoder reads versions %d to %d); upgrade notesoup", version, versionLinear, versionCurrent)
	}
	return id, version, h, nil
}

// rawEntry is the union of the fields of the known entry types that the
// decoder reads; unread fields (usage, details, data, image bytes) are
// skipped by the JSON scanner without being stored.
type rawEntry struct {
	Type      string          `json:"type"`
	ID        *string         `json:"id"`
	ParentID  *string         `json:"parentId"`
	Timestamp *string         `json:"timestamp"`
	Message   *rawMessage     `json:"message"`
	Summary   *string         `json:"summary"`
	Content   json.RawMessage `json:"content"`
}

// rawMessage is entry.message (pi.md §3.3).
type rawMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID *string         `json:"toolCallId"`
	ToolName   *string         `json:"toolName"`
	Command    *string         `json:"command"`
	Output     *string         `json:"output"`
	IsError    bool            `json:"isError"`
	ErrorMsg   *string         `json:"errorMessage"`
}

// rawBlock is one content block. Thinking text and image data are not
// declared, so they are never copied out of the line.
type rawBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text"`
	ID        *string         `json:"id"`
	Name      *string         `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// rawEnvelope is what every line must have even when its type is unknown.
type rawEnvelope struct {
	Type     json.RawMessage `json:"type"`
	ID       json.RawMessage `json:"id"`
	ParentID json.RawMessage `json:"parentId"`
}

// parseEntry decodes one committed entry line. withText says whether visible
// text is wanted (the emitting pass) or only the tree shape (the indexing
// pass). An error is a refusal reason for this line.
func parseEntry(line []byte, version int, withText bool) (entry, error) {
	return parseEntryOf(line, version, withText, false)
}

// parseEntryOf is parseEntry; trusted says the line was parsed before from
// these very bytes (the emitting pass over a file read once), so its
// strings need not be checked again (jsonscan.Scanner.Trusted).
func parseEntryOf(line []byte, version int, withText, trusted bool) (entry, error) {
	if e, ok := parseEntryFastOf(line, version, withText, trusted); ok {
		return e, nil
	}
	return parseEntryGeneral(line, version, withText)
}

// parseEntryGeneral decodes any line, field by field where it must, and
// words the refusal of an invalid one.
func parseEntryGeneral(line []byte, version int, withText bool) (entry, error) {
	var raw rawEntry
	if err := json.Unmarshal(line, &raw); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) || !json.Valid(line) {
			return entry{}, fmt.Errorf("malformed JSON (%v)", err)
		}
		// A type mismatch: refuse it for a known type, tolerate it for a
		// future one (whose fields may mean something else).
		return parseUnknownShape(line, version, err)
	}
	if !knownEntryTypes[raw.Type] {
		return parseUnknownShape(line, version, nil)
	}
	e := entry{typ: raw.Type}
	if err := e.setLinks(raw.ID, raw.ParentID, version); err != nil {
		return entry{}, err
	}
	if raw.Timestamp != nil && withText { // the index pass does not need it
		// An unparsable time is not a reason to hide the record.
		e.time, _ = time.Parse(time.RFC3339Nano, *raw.Timestamp)
	}
	switch raw.Type {
	case "message":
		if raw.Message == nil {
			return entry{}, errors.New(`message entry has no "message" object`)
		}
		if err := e.setMessage(raw.Message, line, withText); err != nil {
			return entry{}, err
		}
	case "compaction", "branch_summary":
		if raw.Summary == nil {
			return entry{}, fmt.Errorf(`%s entry has no string "summary"`, raw.Type)
		}
		e.kind = kindCompaction
		if raw.Type == "branch_summary" {
			e.kind = kindBranchSummary
		}
		if withText {
			e.text = *raw.Summary
		}
	case "custom_message":
		text, err := contentText(raw.Content, withText, "custom_message content")
		if err != nil {
			return entry{}, err
		}
		e.kind, e.text = kindCustomMessage, text
	}
	return e, nil
}

// parseUnknownShape handles a line whose type or role the decoder does not
// know (or a known type with mistyped fields, cause != nil): only its tree
// links are kept, so its children still reach the root.
func parseUnknownShape(line []byte, version int, cause error) (entry, error) {
	var env rawEnvelope
	if err := json.Unmarshal(line, &env); err != nil {
		return entry{}, fmt.Errorf("not a JSON object (%v)", err)
	}
	var typ string
	if len(env.Type) > 0 {
		if err := json.Unmarshal(env.Type, &typ); err != nil {
			return entry{}, errors.New(`entry "type" is not a string`)
		}
	}
	if cause != nil && knownEntryTypes[typ] {
		var ute *json.UnmarshalTypeError
		if errors.As(cause, &ute) && ute.Field != "" && strings.HasPrefix(ute.Field, "message") && typ == "message" {
			// A mistyped field inside an unknown role is the role's business.
			var m struct {
				Message struct {
					Role string `json:"role"`
				} `json:"message"`
			}
			if json.Unmarshal(line, &m) == nil && !knownRoles[m.Message.Role] {
				return treeOnly(typ, env, version)
			}
		}
		return entry{}, fmt.Errorf("invalid %s entry (%v)", typ, cause)
	}
	return treeOnly(typ, env, version)
}

// treeOnly keeps an unknown record's links when it has valid ones; a record
// without an id cannot be anyone's parent and is dropped.
func treeOnly(typ string, env rawEnvelope, version int) (entry, error) {
	e := entry{typ: typ, kind: kindTreeOnly}
	var id, parent *string
	if json.Unmarshal(env.ID, &id) != nil || json.Unmarshal(env.ParentID, &parent) != nil {
		return entry{typ: typ}, nil
	}
	if version >= versionTree && (id == nil || *id == "") {
		return entry{typ: typ}, nil
	}
	if err := e.setLinks(id, parent, version); err != nil {
		return entry{typ: typ}, nil
	}
	return e, nil
}

// setLinks validates and records id/parentId. Version 1 files have neither;
// their links are assigned by the caller from file order.
func (e *entry) setLinks(id, parent *string, version int) error {
	if version == versionLinear {
		return nil
	}
	if id == nil || *id == "" {
		return fmt.Errorf(`%s entry has no string "id"`, e.typ)
	}
	e.id = *id
	if parent != nil {
		if *parent == "" {
			return fmt.Errorf(`%s entry %s has an empty "parentId" (use null for a root)`, e.typ, e.id)
		}
		e.parentID, e.hasParent = *parent, true
	}
	return nil
}

// setMessage validates entry.message for the known roles and extracts what
// the projection shows.
func (e *entry) setMessage(m *rawMessage, line []byte, withText bool) error {
	switch m.Role {
	case "user":
		text, err := contentText(m.Content, withText, "user message content")
		if err != nil {
			return err
		}
		e.kind, e.text = kindUser, text
	case "assistant":
		if err := e.setAssistant(m.Content, withText); err != nil {
			return err
		}
		e.failed(m.ErrorMsg, withText)
	case "toolResult":
		if m.ToolCallID == nil || *m.ToolCallID == "" {
			return errors.New(`toolResult message has no string "toolCallId"`)
		}
		text, err := contentText(m.Content, withText, "toolResult content")
		if err != nil {
			return err
		}
		e.kind, e.text, e.resultID, e.isError = kindToolResult, text, *m.ToolCallID, m.IsError
		if m.ToolName != nil {
			e.toolName = *m.ToolName
		}
	case "bashExecution":
		if m.Command == nil {
			return errors.New(`bashExecution message has no string "command"`)
		}
		e.kind = kindBash
		if withText {
			out := ""
			if m.Output != nil {
				out = *m.Output
			}
			// Rendered as pi renders it for the model (pi.md §3.4).
			e.text = "Ran `" + *m.Command + "`\n```\n" + strings.TrimRight(out, "\n") + "\n```"
		}
	case "custom", "hookMessage": // hookMessage: the v2 name, migrated in memory
		text, err := contentText(m.Content, withText, "custom message content")
		if err != nil {
			return err
		}
		e.kind, e.text = kindCustomMessage, text
	default:
		// A role this decoder does not know: keep the link, show nothing.
		e.kind = kindTreeOnly
	}
	return nil
}

// setAssistant reads an assistant content array: text blocks are shown,
// thinking is not, toolCall blocks become tool uses.
func (e *entry) setAssistant(content json.RawMessage, withText bool) error {
	e.kind = kindAssistant
	if c := bytes.TrimSpace(content); len(c) > 0 && c[0] == '"' {
		// Not written by pi 0.73.1, but a plain string is plainly text.
		text, err := contentText(c, withText, "assistant message content")
		e.text = text
		return err
	}
	blocks, err := decodeBlocks(content, "assistant message content")
	if err != nil {
		return err
	}
	return e.assistantBlocks(blocks, withText)
}

// assistantBlocks reads the blocks of an assistant message.
func (e *entry) assistantBlocks(blocks []rawBlock, withText bool) error {
	e.kind = kindAssistant
	var sb paras
	for i, b := range blocks {
		switch b.Type {
		case "text":
			if b.Text == nil {
				return fmt.Errorf("assistant content block %d: text block has no string \"text\"", i)
			}
			if withText {
				sb.add(*b.Text)
			}
		case "toolCall":
			if b.ID == nil || *b.ID == "" {
				return fmt.Errorf("assistant content block %d: toolCall has no string \"id\"", i)
			}
			if b.Name == nil {
				return fmt.Errorf("assistant content block %d: toolCall %s has no string \"name\"", i, *b.ID)
			}
			c := toolCall{id: *b.ID, name: *b.Name}
			if withText && len(b.Arguments) > 0 && string(b.Arguments) != "null" {
				c.args = compactJSON(b.Arguments)
			}
			e.calls = append(e.calls, c)
		}
	}
	e.text = sb.String()
	return nil
}

// contentText reads content that is a string or an array of text/image
// blocks and returns the text blocks joined by blank lines.
func contentText(content json.RawMessage, withText bool, what string) (string, error) {
	content = bytes.TrimSpace(content)
	if len(content) == 0 || string(content) == "null" {
		return "", nil
	}
	if content[0] == '"' {
		if !withText {
			return "", nil
		}
		var s string
		if err := json.Unmarshal(content, &s); err != nil {
			return "", fmt.Errorf("%s: %v", what, err)
		}
		return s, nil
	}
	blocks, err := decodeBlocks(content, what)
	if err != nil {
		return "", err
	}
	return blocksText(blocks, withText, what)
}

// blocksText joins the text blocks of a content array by blank lines.
func blocksText(blocks []rawBlock, withText bool, what string) (string, error) {
	var sb paras
	for i, b := range blocks {
		if b.Type == "text" {
			if b.Text == nil {
				return "", fmt.Errorf("%s block %d: text block has no string \"text\"", what, i)
			}
			if withText {
				sb.add(*b.Text)
			}
		}
	}
	return sb.String(), nil
}

// decodeBlocks decodes a content array. A block of an unknown type whose
// fields clash with the known ones is skipped rather than refused.
func decodeBlocks(content json.RawMessage, what string) ([]rawBlock, error) {
	content = bytes.TrimSpace(content)
	if len(content) == 0 || string(content) == "null" {
		return nil, nil
	}
	if content[0] != '[' {
		return nil, fmt.Errorf("%s is neither a string nor an array of blocks", what)
	}
	var blocks []rawBlock
	if err := json.Unmarshal(content, &blocks); err == nil {
		return blocks, nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(content, &raws); err != nil {
		return nil, fmt.Errorf("%s: %v", what, err)
	}
	blocks = blocks[:0]
	for i, r := range raws {
		var b rawBlock
		if err := json.Unmarshal(r, &b); err != nil {
			var t struct {
				Type string `json:"type"`
			}
			if json.Unmarshal(r, &t) == nil && t.Type != "text" && t.Type != "toolCall" {
				continue
			}
			return nil, fmt.Errorf("%s block %d: %v", what, i, err)
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

// paras joins text blocks with blank lines, as they render, without
// copying when there is only one (the usual case: one text block holding a
// long tool output).
type paras struct {
	one string
	sb  strings.Builder
	n   int
}

func (p *paras) add(s string) {
	if s == "" {
		return
	}
	switch p.n {
	case 0:
		p.one = s
	case 1:
		p.sb.Grow(len(p.one) + 2 + len(s))
		p.sb.WriteString(p.one)
		fallthrough
	default:
		p.sb.WriteString("\n\n")
		p.sb.WriteString(s)
	}
	p.n++
}

func (p *paras) String() string {
	if p.n <= 1 {
		return p.one
	}
	return p.sb.String()
}

// compactJSON renders tool arguments on one line; it falls back to the raw
// text if they are not valid JSON.
func compactJSON(raw json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	return buf.String()
}

// fastEntry is rawEntry with content already decoded as block arrays, so a
// line is scanned once. Lines it cannot take (string content, mistyped
// fields, unknown types) go to the general path, which also words refusals.
type fastEntry struct {
	Type      string       `json:"type"`
	ID        *string      `json:"id"`
	ParentID  *string      `json:"parentId"`
	Timestamp *string      `json:"timestamp"`
	Message   *fastMessage `json:"message"`
	Summary   *string      `json:"summary"`
	Content   []rawBlock   `json:"content"`
}

type fastMessage struct {
	Role       string     `json:"role"`
	Content    []rawBlock `json:"content"`
	ToolCallID *string    `json:"toolCallId"`
	ToolName   *string    `json:"toolName"`
	Command    *string    `json:"command"`
	Output     *string    `json:"output"`
	IsError    bool       `json:"isError"`
	ErrorMsg   *string    `json:"errorMessage"`
}

// parseEntryFast decodes the common, valid shapes of known entries; ok is
// false for anything else, including anything that would be refused.
func parseEntryFast(line []byte, version int, withText bool) (entry, bool) {
	return parseEntryFastOf(line, version, withText, false)
}

// parseEntryFastOf is parseEntryFast with parseEntryOf's trusted.
func parseEntryFastOf(line []byte, version int, withText, trusted bool) (entry, bool) {
	raw, ok := scanEntryOf(line, withText, trusted)
	if !ok {
		// Shapes the single-pass scanner leaves alone (escaped or
		// case-folded keys, duplicates, very deep nesting) or invalid
		// lines: encoding/json decides, as before.
		raw = fastEntry{}
		if json.Unmarshal(line, &raw) != nil {
			return entry{}, false
		}
	}
	if !knownEntryTypes[raw.Type] {
		return entry{}, false
	}
	e := entry{typ: raw.Type}
	if e.setLinks(raw.ID, raw.ParentID, version) != nil {
		return entry{}, false
	}
	if raw.Timestamp != nil && withText { // the index pass does not need it
		e.time, _ = time.Parse(time.RFC3339Nano, *raw.Timestamp)
	}
	var err error
	switch raw.Type {
	case "message":
		m := raw.Message
		if m == nil {
			return entry{}, false
		}
		switch m.Role {
		case "user":
			e.kind = kindUser
			e.text, err = blocksText(m.Content, withText, "")
		case "assistant":
			err = e.assistantBlocks(m.Content, withText)
			e.failed(m.ErrorMsg, withText)
		case "toolResult":
			if m.ToolCallID == nil || *m.ToolCallID == "" {
				return entry{}, false
			}
			e.kind, e.resultID, e.isError = kindToolResult, *m.ToolCallID, m.IsError
			if m.ToolName != nil {
				e.toolName = *m.ToolName
			}
			e.text, err = blocksText(m.Content, withText, "")
		case "custom", "hookMessage":
			e.kind = kindCustomMessage
			e.text, err = blocksText(m.Content, withText, "")
		default: // bashExecution and unknown roles: the general path
			return entry{}, false
		}
	case "compaction", "branch_summary":
		if raw.Summary == nil {
			return entry{}, false
		}
		e.kind = kindCompaction
		if raw.Type == "branch_summary" {
			e.kind = kindBranchSummary
		}
		if withText {
			e.text = *raw.Summary
		}
	case "custom_message":
		e.kind = kindCustomMessage
		e.text, err = blocksText(raw.Content, withText, "")
	}
	if err != nil {
		return entry{}, false
	}
	return e, true
}

// requestFailed prefixes the error pi recorded for a failed model request
// (an assistant message with no content, pi.md §3.3), so a failure is
// visible in history instead of an empty row.
const requestFailed = "[request failed] "

// failed shows a failed request's recorded error when the message has no
// text of its own.
func (e *entry) failed(msg *string, withText bool) {
	if withText && e.text == "" && msg != nil && *msg != "" {
		e.text = requestFailed + *msg
	}
}
