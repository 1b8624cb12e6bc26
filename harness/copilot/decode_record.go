package copilot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"
)

// Event types the decoder reads; every other type is ignored, as a reader
// of a newer CLI's file must ignore what it does not know.
const (
	evStart              = "session.start"
	evUser               = "user.message"
	evAssistant          = "assistant.message"
	evToolStart          = "tool.execution_start"
	evToolComplete       = "tool.execution_complete"
	evCompactionComplete = "session.compaction_complete"
	evContextCleared     = "session.context_cleared"
	evRewind             = "session.snapshot_rewind"
	evError              = "session.error"
	evWarning            = "session.warning"
)

// record is one events.jsonl line: the envelope every event has. Data is
// kept raw until the type says what it holds.
type record struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	AgentID   string          `json:"agentId"`
	Data      json.RawMessage `json:"data"`
}

// parseRecord parses one line. A line that is not a JSON object with a
// string type is not a Copilot CLI event.
func parseRecord(b []byte) (record, error) {
	var r record
	if err := json.Unmarshal(b, &r); err != nil {
		return record{}, fmt.Errorf("not a JSON event: %v", err)
	}
	if r.Type == "" {
		return record{}, fmt.Errorf("not a Copilot CLI event: no type")
	}
	return r, nil
}

// data decodes a record's data into v; absent or null data leaves v zero.
func (r record) data(v any) error {
	d := bytes.TrimSpace(r.Data)
	if len(d) == 0 || string(d) == "null" {
		return nil
	}
	if err := json.Unmarshal(d, v); err != nil {
		return fmt.Errorf("%s event %s: data: %v", r.Type, clip(r.ID), err)
	}
	return nil
}

// startData is session.start's data: the session's id and where it ran.
type startData struct {
	SessionID string `json:"sessionId"`
	StartTime string `json:"startTime"`
	Context   struct {
		Cwd string `json:"cwd"`
	} `json:"context"`
}

// userData is user.message's data: content is what the user typed
// (transformedContent, what the model got, adds the CLI's own context).
type userData struct {
	Content string `json:"content"`
}

// toolRequest is one call in an assistant message.
type toolRequest struct {
	ToolCallID string          `json:"toolCallId"`
	Name       string          `json:"name"`
	Arguments  json.RawMessage `json:"arguments"`
}

// assistantData is assistant.message's data. Its reasoning
// (reasoningText, reasoningOpaque, encryptedContent) is never read.
type assistantData struct {
	Content          string        `json:"content"`
	ToolRequests     []toolRequest `json:"toolRequests"`
	ParentToolCallID string        `json:"parentToolCallId"`
}

// toolStartData is tool.execution_start's data.
type toolStartData struct {
	ToolCallID       string          `json:"toolCallId"`
	ToolName         string          `json:"toolName"`
	Arguments        json.RawMessage `json:"arguments"`
	ParentToolCallID string          `json:"parentToolCallId"`
}

// toolCompleteData is tool.execution_complete's data: result on success
// (content is what the model got, detailedContent what the CLI showed),
// error on failure.
type toolCompleteData struct {
	ToolCallID string `json:"toolCallId"`
	Success    bool   `json:"success"`
	Result     *struct {
		Content         string `json:"content"`
		DetailedContent string `json:"detailedContent"`
	} `json:"result"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
	ParentToolCallID string `json:"parentToolCallId"`
}

// compactionData is session.compaction_complete's data.
type compactionData struct {
	Success        bool   `json:"success"`
	SummaryContent string `json:"summaryContent"`
}

// rewindData is session.snapshot_rewind's data: upToEventId is the first
// event removed; without eventIds it and every later event were removed,
// with them exactly those.
type rewindData struct {
	UpToEventID string   `json:"upToEventId"`
	EventIDs    []string `json:"eventIds"`
}

// messageData is session.error's and session.warning's data.
type messageData struct {
	Message string `json:"message"`
}

// compactJSON is a tool call's arguments as compact JSON ("" for none).
// json.Compact keeps the recorded escapes, so every letter and digit stays
// as the file has it (the raw_search promise).
func compactJSON(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// parseTime reads an event's RFC 3339 time; zero when there is none.
func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// clip bounds a value quoted into an error message.
func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
