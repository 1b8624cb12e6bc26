package codex

import "github.com/notesoup/notesoup/harness/jsonscan"

// scan is the shared single-pass scanner (harness/jsonscan) with the Codex
// rollout line shapes on top (decode_scan_line.go).
type scan struct {
	jsonscan.Scanner
	items bool // take output arrays of content items (scanLineItems)
}
