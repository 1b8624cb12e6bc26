package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notesoup/notesoup/harness"
)

// TestHookTrustHashIsCodexs holds the hashes the real Codex 0.171.0 wrote
// into config.toml when a person chose "Trust all and continue" for the
// hooks `notesoup install codex --binary /tmp/c18/notesoup` wrote into the
// Codex home /tmp/c18/trust1/home/.codex (run in tmux, config.toml diffed).
func TestHookTrustHashIsCodexs(t *testing.T) {
	home := "/tmp/c18/trust1/home/.codex"
	raw, _, err := mergeHooks(nil, "/tmp/c18/notesoup")
	if err != nil {
		t.Fatal(err)
	}
	got, err := notesoupHookTrust(home, raw)
	if err != nil {
		t.Fatal(err)
	}
	want := []hookTrust{
		{home + "/hooks.json:post_tool_use:0:0", "sha256:c1c96923cfed817ce1f04c681ca087a5d2b669fcf568676c70bc7515fec6e4f8"},
		{home + "/hooks.json:session_start:0:0", "sha256:2f1a6be8f95f5b8de3a3d2e818285cb7cb7103e38bab6dac09a14472434fd0b5"},
		{home + "/hooks.json:user_prompt_submit:0:0", "sha256:cd843b88d424f917b2eebfcecbcc5fd71ce43dce02c7966fb8509655a9f95eff"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d entries %v, want %v", len(got), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestMergeTrust(t *testing.T) {
	k := "/h/hooks.json:session_start:0:0"
	want := []hookTrust{{k, "sha256:new"}}
	header := `[hooks.state."` + k + `"]`
	tests := []struct {
		name, old string
		ok        bool
		same      bool   // the text comes back unchanged
		has       string // a substring of the result
		hasNot    string
		msg       string
	}{
		{name: "none yet", old: "model = \"m\"\n", ok: true, has: header + "\ntrusted_hash = \"sha256:new\"\n", msg: "hooks trusted"},
		{name: "already trusted", old: header + "\ntrusted_hash = \"sha256:new\"\n", ok: true, same: true, msg: "already trusts"},
		{name: "trusted for an older command", old: "[hooks.state]\n\n" + header + "\ntrusted_hash = \"sha256:old\"\n\n[other]\nx = 1\n",
			ok: true, has: "trusted_hash = \"sha256:new\"", hasNot: "sha256:old", msg: "hooks trusted"},
		{name: "disabled by the person", old: header + "\nenabled = false\n", ok: true, same: true, msg: "disabled in Codex by you"},
		{name: "inline hooks.state", old: "hooks = { state = { other = { enabled = true } } }\n", ok: false, same: true, msg: "Trust all and continue"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, msgs, ok := mergeTrust(tc.old, want)
			if ok != tc.ok {
				t.Errorf("ok = %v, want %v", ok, tc.ok)
			}
			if tc.same && out != tc.old {
				t.Errorf("changed:\n%s", out)
			}
			if tc.has != "" && !strings.Contains(out, tc.has) {
				t.Errorf("result lacks %q:\n%s", tc.has, out)
			}
			if tc.hasNot != "" && strings.Contains(out, tc.hasNot) {
				t.Errorf("result still holds %q:\n%s", tc.hasNot, out)
			}
			if !strings.Contains(strings.Join(msgs, "\n"), tc.msg) {
				t.Errorf("messages %q lack %q", msgs, tc.msg)
			}
			if _, err := decodeTOML([]byte(out)); err != nil {
				t.Errorf("result does not parse: %v\n%s", err, out)
			}
		})
	}
}

// TestInstallRecordsTrustAndUninstallTakesItOut: install trusts exactly
// the hooks it wrote (doctor agrees), a second install changes nothing,
// and uninstall gives config.toml back byte for byte, also when Codex
// itself recorded the trust (its "Trust all" layout).
func TestInstallRecordsTrustAndUninstallTakesItOut(t *testing.T) {
	for _, codexWrote := range []bool{false, true} {
		home := t.TempDir()
		orig := "model = \"m\"\n"
		cfgPath := filepath.Join(home, configFile)
		if err := os.WriteFile(cfgPath, []byte(orig), 0o600); err != nil {
			t.Fatal(err)
		}
		req := harness.InstallRequest{Home: home, Binary: testBin}
		rep, err := Install(req)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(rep.Messages, "\n"), "hooks trusted") {
			t.Errorf("install does not say it trusted the hooks: %q", rep.Messages)
		}
		raw, _ := os.ReadFile(filepath.Join(home, hooksFile))
		trust, err := notesoupHookTrust(home, raw)
		if err != nil || len(trust) != len(HookEvents) {
			t.Fatalf("trust %v (%v), want one per event", trust, err)
		}
		cfg, _ := os.ReadFile(cfgPath)
		for _, tr := range trust {
			if !strings.Contains(string(cfg), `[hooks.state."`+tr.Key+`"]`+"\ntrusted_hash = \""+tr.Hash+"\"") {
				t.Errorf("config.toml lacks the trust of %s:\n%s", tr.Key, cfg)
			}
		}
		if rows := DoctorChecks(home); rows[len(rows)-1].Status != harness.CheckOK {
			t.Errorf("doctor after install: %+v", rows[len(rows)-1])
		}
		if _, err := Install(req); err != nil {
			t.Fatal(err)
		} else if again, _ := os.ReadFile(cfgPath); string(again) != string(cfg) {
			t.Errorf("second install changed config.toml")
		}
		if codexWrote {
			// As Codex writes it: an empty [hooks.state] first, then the
			// tables without notesoup's comment.
			text := string(cfg)[:strings.Index(string(cfg), "\n"+trustComment)] + "\n[hooks.state]\n"
			for _, tr := range trust {
				text += "\n[hooks.state.\"" + tr.Key + "\"]\ntrusted_hash = \"" + tr.Hash + "\"\n"
			}
			os.WriteFile(cfgPath, []byte(text), 0o600)
			if rows := DoctorChecks(home); rows[len(rows)-1].Status != harness.CheckOK {
				t.Errorf("doctor with Codex's layout: %+v", rows[len(rows)-1])
			}
		}
		if _, err := Uninstall(req); err != nil {
			t.Fatal(err)
		}
		after, _ := os.ReadFile(cfgPath)
		want := orig
		if codexWrote {
			want = orig + "\n[hooks.state]\n" // Codex's own header stays
		}
		if string(after) != want {
			t.Errorf("codexWrote=%v: after uninstall config.toml =\n%q\nwant\n%q", codexWrote, after, want)
		}
	}
}

// TestDoctorSeesAChangedHook: a hook edited since it was trusted is
// reported, as Codex will not run it.
func TestDoctorSeesAChangedHook(t *testing.T) {
	home := t.TempDir()
	if _, err := Install(harness.InstallRequest{Home: home, Binary: testBin}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(home, hooksFile)
	raw, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.ReplaceAll(string(raw), `"timeout": 30`, `"timeout": 31`)), 0o600)
	rows := DoctorChecks(home)
	c := rows[len(rows)-1]
	if c.Status != harness.CheckProblem || !strings.Contains(c.Detail, "changed since trusted") || !strings.Contains(c.Fix, "notesoup install codex") {
		t.Errorf("doctor row = %+v, want a problem naming the changed hooks", c)
	}
}
