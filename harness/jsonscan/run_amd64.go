//go:build amd64 && !purego

package jsonscan

// run is Run in assembly: sixteen bytes per step, escapes stepped over
// in place, make string scanning (most of a decode's work) several times
// faster than eight-byte words in Go.
//
//go:noescape
func run(b []byte) (n int, esc, high bool)

// unescapeRun is unescapeRunGo in assembly: one pass that copies sixteen
// bytes at a time and translates escapes in place, where a search for each
// backslash and a copy of each run between them cost a call or two per
// escape (tool output has one every few dozen bytes).
//
//go:noescape
func unescapeRun(dst, src []byte) (w, r int, high bool)
