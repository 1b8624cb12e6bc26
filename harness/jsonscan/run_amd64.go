package jsonscan

// run is Run in assembly: sixteen bytes per step, escapes stepped over
// in place, make string scanning (most of a decode's work) several times
// faster than eight-byte words in Go.
//
//go:noescape
func run(b []byte) (n int, esc, high bool)
