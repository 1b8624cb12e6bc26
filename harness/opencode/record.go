package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// maxRowBytes bounds one message's or part's JSON. OpenCode truncates
// tool output to tens of kilobytes; a row of 8 MiB is corrupt or hostile,
// and is refused without being read (its size comes from SQLite).
const maxRowBytes = 8 << 20

// span is a start and end time, in Unix milliseconds.
type span struct {
	Start int64 `json:"start"`
	End   int64 `json:"end"`
}

// messageData is what the plugin reads of a message row's JSON. Fields it
// does not name are ignored, so OpenCode may add its own.
type messageData struct {
	Role string `json:"role"`
	// Summary is true on the assistant message that holds a compaction's
	// summary; user messages carry an object here (their diffs).
	Summary json.RawMessage `json:"summary"`
	Error   *struct {
		Name string `json:"name"`
		Data struct {
			Message string `json:"message"`
		} `json:"data"`
	} `json:"error"`
}

// isSummary reports whether the message is a compaction's summary.
func (m messageData) isSummary() bool { return bytes.Equal(bytes.TrimSpace(m.Summary), []byte("true")) }

// partData is what the plugin reads of a part row's JSON.
type partData struct {
	Type string `json:"type"`
	// text, reasoning
	Text      string `json:"text"`
	Synthetic bool   `json:"synthetic"`
	Ignored   bool   `json:"ignored"`
	Time      *span  `json:"time"`
	// tool
	Tool   string     `json:"tool"`
	CallID string     `json:"callID"`
	State  *toolState `json:"state"`
	// file
	Filename string `json:"filename"`
	URL      string `json:"url"`
	// subtask
	Prompt string `json:"prompt"`
}

// toolState is a tool part's state: pending and running calls have no
// result yet, completed ones an output, failed ones an error.
type toolState struct {
	Status string          `json:"status"`
	Input  json.RawMessage `json:"input"`
	Output string          `json:"output"`
	Error  string          `json:"error"`
	Time   *span           `json:"time"`
}

// errNotObject is the reason a row's data is refused when it is not a
// JSON object.
var errNotObject = errors.New("not a JSON object")

// parseMessage decodes a message row's data.
func parseMessage(data []byte) (messageData, error) {
	var m messageData
	if err := parseObject(data, &m); err != nil {
		return m, err
	}
	if m.Role != "user" && m.Role != "assistant" {
		return m, fmt.Errorf("role %.40q is neither \"user\" nor \"assistant\"", m.Role)
	}
	return m, nil
}

// parsePart decodes a part row's data.
func parsePart(data []byte) (partData, error) {
	var p partData
	if err := parseObject(data, &p); err != nil {
		return p, err
	}
	if p.Type == "" {
		return p, errors.New("no type")
	}
	if p.Type == "tool" && p.State == nil {
		return p, errors.New("a tool part without a state")
	}
	return p, nil
}

// parseObject decodes data, which must be one JSON object, into v.
func parseObject(data []byte, v any) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return errNotObject
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%w: %v", errNotObject, err)
	}
	return nil
}

// compactJSON returns raw as compact JSON, "" when empty or null.
func compactJSON(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}
