//go:build !unix

package rawread

// openNoFollow is 0 where open has no such flag; Open's fstat still
// refuses what is not a regular file.
const openNoFollow = 0

func isLinkRefusal(error) bool { return false }
