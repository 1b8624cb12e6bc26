//go:build !amd64

package jsonscan

// run is Run; other architectures use the portable version.
func run(b []byte) (n int, esc, high bool) { return runGo(b) }

// unescapeRun is unescapeRunGo on other architectures.
func unescapeRun(dst, src []byte) (w, r int, high bool) { return unescapeRunGo(dst, src) }
