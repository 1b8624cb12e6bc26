// Package gate is the source gate of the Claude Code mod's hooks module: it
// refuses call shapes that break the mod's guarantees even though Claude
// Code would load them.
//
//   - A direct $.session.compact() for the reset: it skips the calling mod's
//     own session.compact hook interactively and always rejects under -p;
//     resets go through $.command.run({command: "compact"}) with a marker.
//   - A dynamic import(): a module holding one does not load at all.
//   - $.process.run or $.process.spawn of anything but the plugin's helper
//     ([notesoupBin($), 'helper'] in hooks/helper.ts, `bin/notesoup
//     helper`), and the background vault sync ([notesoupBin($), 'vault',
//     'sync', '--background', ...] in hooks/vaultsync.ts, which detaches and
//     returns): the hooks module runs nothing else.
//
// The gate reads source text with comments removed; it is deliberately
// stricter than a parser (a forbidden shape inside a string also fails), so
// a rewording cannot smuggle a call past it.
package gate

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// HelperFile is the one file allowed to run a process.
const HelperFile = "helper.ts"

// HelperArgv is the only argv a process may be run with: the plugin-local
// notesoup (bin/notesoup) answering the helper protocol.
const HelperArgv = "[notesoupBin($), 'helper']"

// VaultSyncFile may run one other process: the background vault sync.
const VaultSyncFile = "vaultsync.ts"

// VaultSyncArgv is that process's argv, exactly.
const VaultSyncArgv = "[notesoupBin($), 'vault', 'sync', '--background', '--quiet', '--wait', '2s']"

// Violation is one forbidden call shape at a file and line.
type Violation struct {
	File string
	Line int
	Rule string
	Text string
}

func (v Violation) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", v.File, v.Line, v.Rule, v.Text)
}

// Rule names.
const (
	RuleSessionCompact = "direct $.session.compact() (reset through $.command.run({command: \"compact\"}) with a marker instead)"
	RuleDynamicImport  = "dynamic import() (a hooks module holding one does not load; use an import declaration)"
	RuleProcess        = "process run of something other than the plugin's helper (only $.process.run(" + HelperArgv + ", …) in " + HelperFile + ")"
)

var (
	sessionCompact = regexp.MustCompile(`\bsession\s*(\.\s*compact|\[\s*['"` + "`" + `]compact['"` + "`" + `]\s*\])\s*\(`)
	dynamicImport  = regexp.MustCompile(`\bimport\s*\(`)
	// processCall finds any run/spawn on a process noun, however spelled.
	processCall = regexp.MustCompile(`\bprocess\s*(\.\s*(run|spawn)|\[\s*['"` + "`" + `](run|spawn)['"` + "`" + `]\s*\])\s*\(`)
	// allowedProcess is the one permitted call.
	allowedProcess = regexp.MustCompile(`^\$\.process\.run\(\[notesoupBin\(\$\), 'helper'\],`)
	// allowedVaultSync is the background vault sync's call.
	allowedVaultSync = regexp.MustCompile(`^\$\.process\.run\(` + regexp.QuoteMeta(VaultSyncArgv) + `,`)
	// aliasing a process noun would hide later calls from the scan.
	processAlias = regexp.MustCompile(`=\s*\$\s*\.\s*process\b|\{[^}]*\bprocess\b[^}]*\}\s*=\s*\$`)
)

// Check scans the named sources (file name → text) and returns every
// violation, sorted by file and line.
func Check(files map[string]string) []Violation {
	var out []Violation
	for name, src := range files {
		code := StripComments(src)
		add := func(idx int, rule string) {
			line := 1 + strings.Count(code[:idx], "\n")
			end := strings.IndexByte(code[idx:], '\n')
			if end < 0 {
				end = len(code) - idx
			}
			out = append(out, Violation{File: name, Line: line, Rule: rule, Text: strings.TrimSpace(code[idx : idx+end])})
		}
		for _, m := range sessionCompact.FindAllStringIndex(code, -1) {
			add(m[0], RuleSessionCompact)
		}
		for _, m := range dynamicImport.FindAllStringIndex(code, -1) {
			add(m[0], RuleDynamicImport)
		}
		for _, m := range processAlias.FindAllStringIndex(code, -1) {
			add(m[0], RuleProcess)
		}
		for _, m := range processCall.FindAllStringIndex(code, -1) {
			start := m[0]
			// Include the "$." before "process" when present.
			if start >= 2 && code[start-2:start] == "$." {
				start -= 2
			}
			if filepath.Base(name) == HelperFile && allowedProcess.MatchString(code[start:]) {
				continue
			}
			if filepath.Base(name) == VaultSyncFile && allowedVaultSync.MatchString(code[start:]) {
				continue
			}
			add(start, RuleProcess)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Line < out[j].Line
	})
	return out
}

// StripComments blanks // and /* */ comments (keeping newlines, so line
// numbers hold) outside string and template literals.
func StripComments(src string) string {
	b := []byte(src)
	var quote byte
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			for ; i < len(b) && !(b[i] == '*' && i+1 < len(b) && b[i+1] == '/'); i++ {
				if b[i] != '\n' {
					b[i] = ' '
				}
			}
			if i+1 < len(b) {
				b[i], b[i+1] = ' ', ' '
				i++
			}
		}
	}
	return string(b)
}

// sourceExts are the file names the engine loads as hooks-module code.
var sourceExts = []string{".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"}

// ReadModule reads every hooks-module source under dir (not tests, not
// declaration files).
func ReadModule(dir string) (map[string]string, error) {
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() || strings.HasSuffix(name, ".d.ts") || strings.Contains(name, ".test.") {
			return nil
		}
		for _, ext := range sourceExts {
			if strings.HasSuffix(name, ext) {
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				rel, _ := filepath.Rel(dir, p)
				files[rel] = string(data)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("gate: reading the hooks module under %s: %w", dir, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("gate: no hooks-module sources under %s", dir)
	}
	return files, nil
}
