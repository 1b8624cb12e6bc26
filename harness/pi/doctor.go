package pi

import (
	"context"
	"os"
	"path/filepath"

	"github.com/notesoup/notesoup/harness"
)

// Pi's rows of `notesoup doctor`: its version, and whether Pi lists the
// notesoup package that `notesoup install pi` staged, with its binary in
// place. Pi keeps sessions until they are deleted by hand, so there is no
// retention row.

// Doctor reports Pi's rows.
func Doctor(ctx context.Context, env harness.DoctorEnv) []harness.Check {
	dir, err := AgentDir()
	if err != nil {
		return []harness.Check{{Subject: Name, Item: "config", Status: harness.CheckWarn, Detail: err.Error()}}
	}
	ver, onPath := harness.VersionCheck(ctx, env, Name, cli, TestedVersion, "@mariozechner/pi-coding-agent")
	if !onPath && !harness.Exists(dir) {
		return []harness.Check{{Subject: Name, Item: "found", Status: harness.CheckSkip, Detail: "pi is not on PATH and " + dir + " does not exist"}}
	}
	var out []harness.Check
	if onPath {
		out = append(out, ver)
	} else {
		out = append(out, harness.Check{Subject: Name, Item: "version", Status: harness.CheckWarn, Detail: "pi is not on PATH (" + dir + " exists)"})
	}
	return append(out, packageCheck(dir, env.Stage))
}

// packageCheck says whether Pi lists the staged package and it can run
// notesoup.
func packageCheck(agentDir, stage string) harness.Check {
	c := harness.Check{Subject: Name, Item: "package"}
	listed := false
	if stage != "" {
		var err error
		if listed, err = Listed(agentDir, stage); err != nil {
			c.Status, c.Detail, c.Fix = harness.CheckProblem, err.Error(), "fix the JSON in "+filepath.Join(agentDir, settingsFile)
			return c
		}
	}
	if !listed {
		c.Status, c.Detail, c.Fix = harness.CheckWarn, "pi lists no notesoup package installed by notesoup install", "notesoup install pi"
		return c
	}
	bin := filepath.Join(stage, packageBin, "notesoup")
	if fi, err := os.Stat(bin); err != nil || fi.Mode()&0o111 == 0 {
		c.Status, c.Detail, c.Fix = harness.CheckProblem, "pi lists "+stage+" but "+bin+" is missing or not executable", "notesoup install pi"
		return c
	}
	c.Status, c.Detail = harness.CheckOK, "pi lists "+stage
	return c
}
