// Package notes is the notes store every harness shares: plain UTF-8
// Markdown files under $NOTESOUP_HOME (default ~/.notesoup) that a person can
// read, edit and keep under git.
//
// Two scopes are visible to a session. The project scope belongs to the git
// root of the session's working directory (else the directory itself) and
// lives in projects/<slug>-<hash>/; the global scope belongs to the person and
// lives in global/. A note's name says its scope: "api/auth.md" is a project
// note, "~/style.md" a global one. So a note written from Pi is read from
// Claude Code or Codex in the same project.
//
// Usage:
//
//	sp, err := notes.Open(home).Space(cwd)
//	res, err := sp.Write(notes.WriteRequest{Name: "api/auth.md", Content: "..."})
//
// The five operations (List, Read, Write, Edit, Delete) take request structs
// whose json tags are the tool arguments, and return result structs with json
// tags and a Render method. Tools describes them for MCP and the Claude mod;
// Space.Call runs one from raw JSON arguments.
//
// Writes are atomic (temporary file, fsync, rename, fsync of the folder) and
// serialized per scope by an flock on <scope>/.lock, which the kernel drops
// when a holder dies. Reads take no lock: each read sees a whole version.
package notes
