package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"
)

// Record types that are rows of the conversation tree. Every other type is
// metadata the decoder ignores without allocating an address (builds add and
// retire names; see research/claude.md §3).
const (
	typeUser       = "user"
	typeAssistant  = "assistant"
	typeSystem     = "system"
	typeAttachment = "attachment"

	subtypeCompactBoundary = "compact_boundary"
)

func isRowType(t string) bool {
	switch t {
	case typeUser, typeAssistant, typeSystem, typeAttachment:
		return true
	}
	return false
}

// jsonKind records only what kind of JSON value a field held, so the first
// pass can validate shapes without copying large strings.
type jsonKind byte

const (
	kindAbsent jsonKind = iota
	kindNull
	kindString
	kindArray
	kindObject
	kindOther
)

// UnmarshalJSON implements json.Unmarshaler without retaining data.
func (k *jsonKind) UnmarshalJSON(data []byte) error {
	*k = kindOf(data)
	return nil
}

func kindOf(data []byte) jsonKind {
	data = bytes.TrimLeft(data, " \t\r\n")
	if len(data) == 0 {
		return kindAbsent
	}
	switch data[0] {
	case 'n':
		return kindNull
	case '"':
		return kindString
	case '[':
		return kindArray
	case '{':
		return kindObject
	}
	return kindOther
}

// rawDigest records a field's kind and a hash of its bytes, to tell
// identical repeated records from conflicting ones without keeping either.
type rawDigest struct {
	kind jsonKind
	sum  uint64
}

// UnmarshalJSON implements json.Unmarshaler without retaining data.
func (d *rawDigest) UnmarshalJSON(data []byte) error {
	d.kind = kindOf(data)
	h := fnv.New64a()
	h.Write(data)
	d.sum = h.Sum64()
	return nil
}

// toolBlock is a tool_use or tool_result block as the first pass needs it.
type toolBlock struct {
	use  bool
	id   string
	name string
}

// metaContent is message.content as the first pass sees it: its digest, its
// tool blocks in order, and the first schema problem found (the unmarshaler
// never fails, so the record's type is always decoded and an unknown record
// type can be ignored whatever its fields hold).
type metaContent struct {
	rawDigest
	tools   []toolBlock
	problem string
}

type metaBlock struct {
	Type      *string  `json:"type"`
	ID        *string  `json:"id"`
	Name      *string  `json:"name"`
	ToolUseID *string  `json:"tool_use_id"`
	Text      jsonKind `json:"text"`
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *metaContent) UnmarshalJSON(data []byte) error {
	_ = c.rawDigest.UnmarshalJSON(data)
	switch c.kind {
	case kindString:
		return nil
	case kindArray:
	default:
		c.problem = "message.content must be a string or a list of blocks"
		return nil
	}
	var blocks []metaBlock
	if err := json.Unmarshal(data, &blocks); err != nil {
		c.problem = "message.content blocks: " + err.Error()
		return nil
	}
	for i, b := range blocks {
		if b.Type == nil {
			c.problem = fmt.Sprintf("message.content[%d] has no string type", i)
			return nil
		}
		switch *b.Type {
		case "text":
			if b.Text != kindString {
				c.problem = fmt.Sprintf("message.content[%d]: text block without a string text", i)
				return nil
			}
		case "tool_use":
			if b.ID == nil || *b.ID == "" || b.Name == nil || *b.Name == "" {
				c.problem = fmt.Sprintf("message.content[%d]: tool_use block needs a non-empty id and name", i)
				return nil
			}
			c.tools = append(c.tools, toolBlock{use: true, id: *b.ID, name: *b.Name})
		case "tool_result":
			if b.ToolUseID == nil || *b.ToolUseID == "" {
				c.problem = fmt.Sprintf("message.content[%d]: tool_result block needs a non-empty tool_use_id", i)
				return nil
			}
			c.tools = append(c.tools, toolBlock{id: *b.ToolUseID})
		}
	}
	return nil
}

type metaMessage struct {
	ID      string      `json:"id"`
	Role    *string     `json:"role"`
	Content metaContent `json:"content"`
}

type preservedSegment struct {
	HeadUUID   string `json:"headUuid"`
	AnchorUUID string `json:"anchorUuid"`
	TailUUID   string `json:"tailUuid"`
}

type compactMeta struct {
	PreservedSegment *preservedSegment `json:"preservedSegment"`
}

// metaRecord is one line as the first (graph) pass decodes it.
type metaRecord struct {
	Type              string       `json:"type"`
	UUID              *string      `json:"uuid"`
	ParentUUID        *string      `json:"parentUuid"`
	LogicalParentUUID *string      `json:"logicalParentUuid"`
	SessionID         *string      `json:"sessionId"`
	IsSidechain       bool         `json:"isSidechain"`
	Subtype           string       `json:"subtype"`
	CompactMetadata   *compactMeta `json:"compactMetadata"`
	Message           *metaMessage `json:"message"`
	Content           rawDigest    `json:"content"`
	Rendered          rawDigest    `json:"rendered"`
	Attachment        rawDigest    `json:"attachment"`
}

// schemaProblem returns why a row record is invalid, or "".
func (r *metaRecord) schemaProblem() string {
	if r.UUID == nil || *r.UUID == "" {
		return r.Type + " row without a uuid"
	}
	switch r.Type {
	case typeUser, typeAssistant:
		if r.Message == nil {
			return r.Type + " row without a message object"
		}
		if r.Message.Role != nil && *r.Message.Role != r.Type {
			return fmt.Sprintf("%s row whose message.role is %q", r.Type, *r.Message.Role)
		}
		if r.Message.Content.kind == kindAbsent {
			return r.Type + " row without message.content"
		}
		if r.Message.Content.problem != "" {
			return r.Message.Content.problem
		}
	case typeSystem:
		switch r.Content.kind {
		case kindAbsent, kindNull, kindString:
		default:
			return "system row whose content is not a string"
		}
	case typeAttachment:
		if r.Attachment.kind != kindObject {
			return "attachment row without an attachment object"
		}
		switch r.Rendered.kind {
		case kindAbsent, kindNull, kindArray:
		default:
			return "attachment row whose rendered is not a list"
		}
	}
	return ""
}

// digest identifies a record's content for duplicate detection. Links and
// environment stamps may legitimately differ between repeats (the latest
// parentUuid wins); the content may not.
func (r *metaRecord) digest() uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00", r.Type, r.Subtype)
	var content uint64
	if r.Message != nil {
		content = r.Message.Content.sum
	}
	fmt.Fprintf(h, "%x\x00%x\x00%x\x00%x", content, r.Content.sum, r.Rendered.sum, r.Attachment.sum)
	return h.Sum64()
}

// fullBlock is a content block as the second (text) pass decodes it.
type fullBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// fullRecord is one selected row as the second pass decodes it.
type fullRecord struct {
	Type             string `json:"type"`
	UUID             string `json:"uuid"`
	Timestamp        string `json:"timestamp"`
	Subtype          string `json:"subtype"`
	IsCompactSummary bool   `json:"isCompactSummary"`
	Message          *struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
	Content      json.RawMessage `json:"content"`
	Rendered     json.RawMessage `json:"rendered"`
	RenderedRole string          `json:"renderedRole"`
}

// contentText returns the visible text of a content value (a string or a
// list of blocks: only text blocks count) and its blocks.
func contentText(raw json.RawMessage) (string, []fullBlock, error) {
	switch kindOf(raw) {
	case kindAbsent, kindNull:
		return "", nil, nil
	case kindString:
		var s string
		err := json.Unmarshal(raw, &s)
		return s, nil, err
	case kindArray:
		var blocks []fullBlock
		if err := json.Unmarshal(raw, &blocks); err != nil {
			return "", nil, err
		}
		var parts []string
		for _, b := range blocks {
			if b.Type == "text" && b.Text != "" {
				parts = append(parts, b.Text)
			}
		}
		return strings.Join(parts, "\n\n"), blocks, nil
	}
	return "", nil, fmt.Errorf("content is neither a string nor a list")
}

// renderedText is an attachment's recorded rendering: each entry's content
// (a string or text blocks), in order. Raw attachment payloads are never
// read.
func renderedText(raw json.RawMessage) (string, error) {
	if kindOf(raw) != kindArray {
		return "", nil
	}
	var entries []struct {
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &entries); err != nil {
		return "", err
	}
	var parts []string
	for _, e := range entries {
		t, _, err := contentText(e.Content)
		if err != nil {
			return "", err
		}
		if t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n\n"), nil
}

func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}
