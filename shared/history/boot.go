package history

import (
	"strconv"
	"strings"
)

// Boot markers tie a notesoup boot block to the window it opened. A boot's
// text carries `<notesoup-boot window="<harness>:<sessionId>:<ordinal>">`;
// decoders that meet a retained boot take its ordinal instead of advancing
// again, and a boot re-anchors ordinals after an incomplete ancestry.
const bootMarkerPrefix = `<notesoup-boot window="`

// BootMarker renders the marker a boot block must contain for window.
func BootMarker(window string) string {
	return bootMarkerPrefix + window + `">`
}

// BootMarkerPrefix is the literal every boot marker starts with, for
// decoders that want to test raw bytes cheaply before parsing a record.
func BootMarkerPrefix() string { return bootMarkerPrefix }

// ParseBootMarker finds the first well-formed boot marker in text and returns
// its window's harness, session id and ordinal. Malformed markers (no
// closing quote, a non-numeric or negative ordinal) are ignored: a quoted
// fragment must not move window numbering.
func ParseBootMarker(text string) (harness, session string, ordinal int, ok bool) {
	rest := text
	for {
		i := strings.Index(rest, bootMarkerPrefix)
		if i < 0 {
			return "", "", 0, false
		}
		rest = rest[i+len(bootMarkerPrefix):]
		end := strings.Index(rest, `">`)
		if end < 0 {
			return "", "", 0, false
		}
		w := rest[:end]
		first := strings.IndexByte(w, ':')
		last := strings.LastIndexByte(w, ':')
		if first <= 0 || last <= first+1 {
			continue
		}
		n, err := strconv.Atoi(w[last+1:])
		if err != nil || n < 0 || strings.ContainsAny(w, " \n\t\"<>") {
			continue
		}
		return w[:first], w[first+1 : last], n, true
	}
}
