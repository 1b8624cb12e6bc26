// Package selfcontained holds the test that keeps the repository
// self-contained: no tracked file may name the "shared" tree the project
// was once developed beside (the test lists the spellings it refuses). A
// build step, a test or a reader following such a path works only on the
// machine that has that tree, and the project must build, test and read the
// same from a plain clone.
package selfcontained
