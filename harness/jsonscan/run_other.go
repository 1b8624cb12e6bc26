//go:build !amd64 || purego

package jsonscan

// run is Run; other architectures, and amd64 built with the tag purego,
// use the portable version.
func run(b []byte) (n int, esc, high bool) { return runGo(b) }

// unescapeRun is unescapeRunGo on other architectures and with purego.
func unescapeRun(dst, src []byte) (w, r int, high bool) { return unescapeRunGo(dst, src) }
