package gate

import (
	"strings"
	"testing"
)

// hooksDir is the real hooks module.
const hooksDir = "../hooks"

// TestModulePassesGate is the gate itself: the shipped hooks module has no
// forbidden call shape.
func TestModulePassesGate(t *testing.T) {
	files, err := ReadModule(hooksDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := files[HelperFile]; !ok {
		t.Fatalf("%s missing from %v", HelperFile, files)
	}
	if v := Check(files); len(v) > 0 {
		t.Fatalf("the hooks module fails the source gate:\n%v", v)
	}
	// The gate would be vacuous if the one allowed call were not there.
	if !strings.Contains(StripComments(files[HelperFile]), "$.process.run("+HelperArgv) {
		t.Fatalf("%s no longer runs the helper as %s; update the gate with it", HelperFile, HelperArgv)
	}
}

// TestGateCatchesReintroducedShapes reintroduces each forbidden call shape
// into the real module and requires the gate to fail with that rule.
func TestGateCatchesReintroducedShapes(t *testing.T) {
	for _, tc := range []struct {
		name, file, code, rule string
	}{
		{"session.compact for the reset", "mod.ts", "await $.session.compact({ instructions: marker })", RuleSessionCompact},
		{"session.compact spaced", "mod.ts", "void $.session .compact()", RuleSessionCompact},
		{"session compact by index", "mod.ts", "await $.session['compact']()", RuleSessionCompact},
		{"dynamic import", "mod.ts", "const m = await import('./helper')", RuleDynamicImport},
		{"dynamic import spaced", "register.ts", "void import ('./x.js')", RuleDynamicImport},
		{"process.run of a shell", "mod.ts", "await $.process.run(['/bin/sh', '-c', 'rm -rf x'])", RuleProcess},
		{"process.spawn", "mod.ts", "for await (const c of $.process.spawn({ argv: ['git', 'log'] })) {}", RuleProcess},
		{"notesoup, other subcommand", "helper.ts", "await $.process.run([notesoupBin($), 'mcp'], {})", RuleProcess},
		{"notesoup, no subcommand", "helper.ts", "await $.process.run([notesoupBin($)], {})", RuleProcess},
		{"notesoup helper with more arguments", "helper.ts", "await $.process.run([notesoupBin($), 'helper', '--x'], {})", RuleProcess},
		{"process.run in another file", "mod.ts", "await $.process.run([notesoupBin($), 'helper'], {})", RuleProcess},
		{"vault sync in another file", "mod.ts", "await $.process.run(" + VaultSyncArgv + ", {})", RuleProcess},
		{"vault sync, other arguments", "vaultsync.ts", "await $.process.run([notesoupBin($), 'vault', 'restore', 'x'], {})", RuleProcess},
		{"process by index", "mod.ts", "await $.process['run'](['x'])", RuleProcess},
		{"process noun aliased", "mod.ts", "const p = $.process", RuleProcess},
		{"process noun destructured", "mod.ts", "const { process } = $", RuleProcess},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files, err := ReadModule(hooksDir)
			if err != nil {
				t.Fatal(err)
			}
			src, ok := files[tc.file]
			if !ok {
				t.Fatalf("no %s in the module", tc.file)
			}
			files[tc.file] = src + "\nexport async function injected($: any) {\n  " + tc.code + "\n}\n"
			v := Check(files)
			var hit bool
			for _, x := range v {
				if x.Rule == tc.rule && x.File == tc.file {
					hit = true
				}
			}
			if !hit {
				t.Fatalf("the gate passed %q in %s; violations: %v", tc.code, tc.file, v)
			}
		})
	}
}

// TestCommentsDoNotCount: prose about the forbidden shapes is not code.
func TestCommentsDoNotCount(t *testing.T) {
	for _, src := range []string{
		"// never call $.session.compact() here\nexport const x = 1\n",
		"/* import('x') would not load */ export const y = 2\n",
		"const s = 'a // not a comment'; // $.process.run(['sh'])\n",
	} {
		if v := Check(map[string]string{"mod.ts": src}); len(v) > 0 {
			t.Errorf("%q: %v", src, v)
		}
	}
	// A string keeps its content: the gate stays stricter than a parser.
	if v := Check(map[string]string{"mod.ts": "const s = \"import('x')\"\n"}); len(v) != 1 {
		t.Errorf("a forbidden shape inside a string passed: %v", v)
	}
}

// TestViolationLines: a violation names the line it is on.
func TestViolationLines(t *testing.T) {
	v := Check(map[string]string{"mod.ts": "export const a = 1\n/* two\nlines */\nvoid import('x')\n"})
	if len(v) != 1 || v[0].Line != 4 || v[0].Rule != RuleDynamicImport {
		t.Fatalf("got %v, want one dynamic import on line 4", v)
	}
}
