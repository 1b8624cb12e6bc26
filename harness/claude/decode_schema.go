package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"strings"
)

// Record types that are rows of the conversation tree. Every other type is
// metadata the decoder ignores without allocating an address (builds add and
// retire names).
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

// jsonKind records only what kind of JSON value a member held, so the first
// pass can check shapes without copying large strings.
type jsonKind byte

const (
	kindAbsent jsonKind = iota
	kindNull
	kindString
	kindArray
	kindObject
	kindOther
)

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

// digestSeed keys the content digests; they are compared only within one
// decode, so a per-process seed is enough.
var digestSeed = maphash.MakeSeed()

// rawDigest records a member's kind and a hash of its bytes, to tell
// identical repeated records from conflicting ones without keeping either.
type rawDigest struct {
	kind jsonKind
	sum  uint64
}

func (d *rawDigest) set(raw []byte) {
	d.kind = kindOf(raw)
	d.sum = maphash.Bytes(digestSeed, raw)
}

// toolBlock is a tool_use or tool_result block as the first pass needs it.
type toolBlock struct {
	use  bool
	id   string
	name string
}

// metaContent is message.content as the first pass sees it: its digest, its
// tool blocks in order, and the first schema problem found.
type metaContent struct {
	rawDigest
	tools   []toolBlock
	problem string
}

func (c *metaContent) set(raw []byte) {
	c.rawDigest.set(raw)
	switch c.kind {
	case kindString:
		return
	case kindArray:
	default:
		c.problem = "message.content must be a string or a list of blocks"
		return
	}
	i := 0
	elements(raw, func(el []byte) {
		defer func() { i++ }()
		if c.problem != "" {
			return
		}
		if kindOf(el) != kindObject {
			c.problem = fmt.Sprintf("message.content[%d] is not an object", i)
			return
		}
		var typ, id, name, useID []byte
		var hasType, textOK bool
		resultContent := kindAbsent
		members(el, func(k, v []byte) {
			switch string(k) {
			case "type":
				typ, hasType = v, true
			case "id":
				id = v
			case "name":
				name = v
			case "tool_use_id":
				useID = v
			case "text":
				textOK = kindOf(v) == kindString
			case "content":
				resultContent = kindOf(v)
			}
		})
		t, ok := str(typ)
		if !hasType || !ok {
			c.problem = fmt.Sprintf("message.content[%d] has no string type", i)
			return
		}
		switch t {
		case "text":
			if !textOK {
				c.problem = fmt.Sprintf("message.content[%d]: text block without a string text", i)
			}
		case "tool_use":
			ids, ok1 := str(id)
			names, ok2 := str(name)
			if !ok1 || !ok2 || ids == "" || names == "" {
				c.problem = fmt.Sprintf("message.content[%d]: tool_use block needs a non-empty id and name", i)
				return
			}
			c.tools = append(c.tools, toolBlock{use: true, id: ids, name: names})
		case "tool_result":
			u, ok := str(useID)
			if !ok || u == "" {
				c.problem = fmt.Sprintf("message.content[%d]: tool_result block needs a non-empty tool_use_id", i)
				return
			}
			switch resultContent {
			case kindAbsent, kindNull, kindString, kindArray:
			default:
				c.problem = fmt.Sprintf("message.content[%d]: tool_result content must be a string or a list of blocks", i)
				return
			}
			c.tools = append(c.tools, toolBlock{id: u})
		}
	})
}

type metaMessage struct {
	ID      string
	Role    *string
	Content metaContent
}

type preservedSegment struct {
	HeadUUID   string `json:"headUuid"`
	AnchorUUID string `json:"anchorUuid"`
	TailUUID   string `json:"tailUuid"`
}

type compactMeta struct {
	PreservedSegment *preservedSegment `json:"preservedSegment"`
}

// metaRecord is one line as the first (graph) pass reads it.
type metaRecord struct {
	Type              string
	UUID              *string
	ParentUUID        *string
	LogicalParentUUID *string
	SessionID         *string
	IsSidechain       bool
	Subtype           string
	CompactMetadata   *compactMeta
	Message           *metaMessage
	Content           rawDigest
	Rendered          rawDigest
	Attachment        rawDigest
	// problem is the first member of the wrong JSON type; it makes a row
	// invalid, and is irrelevant for records of other types.
	problem string
}

func (r *metaRecord) bad(format string, args ...any) {
	if r.problem == "" {
		r.problem = fmt.Sprintf(format, args...)
	}
}

// parseMeta validates one line and reads the members the graph needs. A
// malformed line returns a *syntaxError; a line that is valid JSON but not
// an object, or has no string type, leaves rec.Type empty.
func parseMeta(line []byte, rec *metaRecord) error {
	return validateMembers(line, func(k, v []byte) {
		var ok bool
		switch string(k) {
		case "type":
			if rec.Type, ok = str(v); !ok {
				rec.Type = ""
			}
		case "uuid":
			if rec.UUID, ok = strOrNull(v); !ok {
				rec.bad("uuid is not a string")
			}
		case "parentUuid":
			if rec.ParentUUID, ok = strOrNull(v); !ok {
				rec.bad("parentUuid is not a string or null")
			}
		case "logicalParentUuid":
			if rec.LogicalParentUUID, ok = strOrNull(v); !ok {
				rec.bad("logicalParentUuid is not a string or null")
			}
		case "sessionId":
			if rec.SessionID, ok = strOrNull(v); !ok {
				rec.bad("sessionId is not a string")
			}
		case "isSidechain":
			if rec.IsSidechain, ok = boolean(v); !ok {
				rec.bad("isSidechain is not a boolean")
			}
		case "subtype":
			if kindOf(v) == kindNull {
				return
			}
			if rec.Subtype, ok = str(v); !ok {
				rec.bad("subtype is not a string")
			}
		case "compactMetadata":
			switch kindOf(v) {
			case kindNull:
			case kindObject:
				var cm compactMeta
				if err := json.Unmarshal(v, &cm); err != nil {
					rec.bad("compactMetadata: %v", err)
					return
				}
				rec.CompactMetadata = &cm
			default:
				rec.bad("compactMetadata is not an object")
			}
		case "message":
			switch kindOf(v) {
			case kindNull:
			case kindObject:
				m := &metaMessage{}
				members(v, func(mk, mv []byte) {
					switch string(mk) {
					case "id":
						if kindOf(mv) != kindNull {
							if m.ID, ok = str(mv); !ok {
								rec.bad("message.id is not a string")
							}
						}
					case "role":
						if m.Role, ok = strOrNull(mv); !ok {
							rec.bad("message.role is not a string")
						}
					case "content":
						m.Content.set(mv)
					}
				})
				rec.Message = m
			default:
				rec.bad("message is not an object")
			}
		case "content":
			rec.Content.set(v)
		case "rendered":
			rec.Rendered.set(v)
			elements(v, func(el []byte) {
				if kindOf(el) != kindObject {
					rec.bad("rendered entries must be objects")
					return
				}
				members(el, func(ek, ev []byte) {
					if string(ek) == "content" {
						switch kindOf(ev) {
						case kindNull, kindString, kindArray:
						default:
							rec.bad("rendered content must be a string or a list of blocks")
						}
					}
				})
			})
		case "attachment":
			rec.Attachment.set(v)
		}
	})
}

// schemaProblem returns why a row record is invalid, or "".
func (r *metaRecord) schemaProblem() string {
	if r.problem != "" {
		return r.problem
	}
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
	var h maphash.Hash
	h.SetSeed(digestSeed)
	h.WriteString(r.Type)
	h.WriteByte(0)
	h.WriteString(r.Subtype)
	var content uint64
	if r.Message != nil {
		content = r.Message.Content.sum
	}
	for _, v := range []uint64{content, r.Content.sum, r.Rendered.sum, r.Attachment.sum} {
		for k := 0; k < 8; k++ {
			h.WriteByte(byte(v >> (8 * k)))
		}
	}
	return h.Sum64()
}

// fullBlock is a content block as the second (text) pass reads it.
type fullBlock struct {
	Type      string
	Text      string
	ID        string
	Name      string
	Input     []byte
	ToolUseID string
	Content   []byte
	IsError   bool
	// decoded is Content already decoded, by the row's one pass
	// (parseRowTrusted); nil when it is still to be read.
	decoded *decodedContent
}

// fullRecord is one selected row as the second pass reads it. Raw members
// alias the line buffer and are valid until the next line is read.
type fullRecord struct {
	Type             string
	UUID             string
	Timestamp        string
	IsCompactSummary bool
	MessageContent   []byte
	Content          []byte
	Rendered         []byte
}

// parseFull validates a line again (the file may have changed since the
// first pass) and reads what the text pass needs.
func parseFull(line []byte, fr *fullRecord) error {
	return parseFullOf(line, fr, false)
}

// parseFullOf is parseFull; trusted says the first pass validated these
// very bytes (a transcript read once), so the members are walked without
// validating the line again.
func parseFullOf(line []byte, fr *fullRecord, trusted bool) error {
	walk := validateMembers
	if trusted {
		walk = func(b []byte, fn func(key, val []byte)) error { members(b, fn); return nil }
	}
	return walk(line, func(k, v []byte) {
		switch string(k) {
		case "type":
			fr.Type, _ = str(v)
		case "uuid":
			fr.UUID, _ = str(v)
		case "timestamp":
			fr.Timestamp, _ = str(v)
		case "isCompactSummary":
			fr.IsCompactSummary, _ = boolean(v)
		case "message":
			members(v, func(mk, mv []byte) {
				if string(mk) == "content" {
					fr.MessageContent = mv
				}
			})
		case "content":
			fr.Content = v
		case "rendered":
			fr.Rendered = v
		}
	})
}

// contentText returns the visible text of a content value (a string or a
// list of blocks: only text blocks count) and its blocks.
func contentText(raw []byte) (string, []fullBlock, error) {
	switch kindOf(raw) {
	case kindAbsent, kindNull:
		return "", nil, nil
	case kindString:
		s, ok := str(raw)
		if !ok {
			return "", nil, fmt.Errorf("content is not a valid string")
		}
		return s, nil, nil
	case kindArray:
		var blocks []fullBlock
		var parts []string
		elements(raw, func(el []byte) {
			var b fullBlock
			members(el, func(k, v []byte) {
				switch string(k) {
				case "type":
					b.Type, _ = str(v)
				case "text":
					b.Text, _ = str(v)
				case "id":
					b.ID, _ = str(v)
				case "name":
					b.Name, _ = str(v)
				case "input":
					b.Input = v
				case "tool_use_id":
					b.ToolUseID, _ = str(v)
				case "content":
					b.Content = v
				case "is_error":
					b.IsError, _ = boolean(v)
				}
			})
			if b.Type == "text" && b.Text != "" {
				parts = append(parts, b.Text)
			}
			blocks = append(blocks, b)
		})
		return strings.Join(parts, "\n\n"), blocks, nil
	}
	return "", nil, fmt.Errorf("content is neither a string nor a list")
}

// renderedText is an attachment's recorded rendering: each entry's content
// (a string or text blocks), in order. Raw attachment payloads are never
// read.
func renderedText(raw []byte) (string, error) {
	if kindOf(raw) != kindArray {
		return "", nil
	}
	var parts []string
	var firstErr error
	elements(raw, func(el []byte) {
		var content []byte
		members(el, func(k, v []byte) {
			if string(k) == "content" {
				content = v
			}
		})
		t, _, err := contentText(content)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		if t != "" {
			parts = append(parts, t)
		}
	})
	return strings.Join(parts, "\n\n"), firstErr
}

// compactJSON renders a tool input on one line.
func compactJSON(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}
