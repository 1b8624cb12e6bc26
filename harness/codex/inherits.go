package codex

import "bytes"

// Inherits names the threads whose rows a rollout inherits, from its first
// line (contract.Inheritor): a paginated fork's session_meta points at its
// parent with history_base, and the decoder shows the parent's rows up to
// the fork point as the fork's own. A search must then look at the
// parent's bytes too, and its answer depends on them.
//
// It reads the bytes, not the JSON: it runs on every rollout a search
// scans. A history_base it cannot read this cheaply names the empty id,
// which no file has, so the search decodes the rollout instead of ruling
// it out from bytes that may not hold all of its text.
func Inherits(firstLine []byte) []string {
	const key = `"history_base":{"thread_id":"`
	i := bytes.Index(firstLine, []byte(`"history_base"`))
	if i < 0 {
		return nil
	}
	if j := bytes.Index(firstLine[i:], []byte(key)); j >= 0 {
		rest := firstLine[i+j+len(key):]
		if k := bytes.IndexByte(rest, '"'); k > 0 {
			return []string{string(rest[:k])}
		}
	}
	return []string{""}
}
