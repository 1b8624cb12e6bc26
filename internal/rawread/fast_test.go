//go:build (linux || darwin) && !purego

package rawread

func init() { implementations["fast"] = readFast }
