package helper_test

import (
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/notesoup/notesoup/internal/testbin"
)

// nodeBaseline is what a Node.js helper would at least cost: start node,
// read one JSON request from stdin, write one JSON response. It does no
// work at all, so it is a floor for a Node implementation of the protocol.
const nodeBaseline = `let d="";process.stdin.on("data",c=>d+=c).on("end",()=>{const r=JSON.parse(d);process.stdout.write(JSON.stringify({v:1,ok:true,result:{echo:r.op}})+"\n")})`

// roundTrips runs cmd b.N times with req on stdin and reports the median
// and 90th percentile wall time of a whole round trip (process start to
// answer), the figures the helper protocol's targets are stated in.
func roundTrips(b *testing.B, env []string, req string, name string, args ...string) {
	b.Helper()
	var times []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(name, args...)
		cmd.Env = env
		cmd.Stdin = strings.NewReader(req)
		var out bytes.Buffer
		cmd.Stdout = &out
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		times = append(times, time.Since(start))
		if !bytes.Contains(out.Bytes(), []byte(`"ok":true`)) {
			b.Fatalf("answer: %s", out.String())
		}
	}
	b.StopTimer()
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)*9/10].Microseconds())/1000, "p90-ms")
}

// BenchmarkHelperRoundTrip measures a helper round trip as a harness pays
// it: a new process per request, from start to answer. "full" is the full
// build (it links gRPC, protobuf and the MCP SDK); "light" is the light
// build, what `make build` installs and the mods run. Both call the built-in harnesses in-process,
// so limits and history.list start no plugin; node-baseline is a Node.js
// process that only reads the request and writes an answer.
func BenchmarkHelperRoundTrip(b *testing.B) {
	e := newEnvB(b)
	light, err := testbin.Light()
	if err != nil {
		b.Fatal(err)
	}
	write := strings.ReplaceAll(`{"v":1,"op":"notes.write","caller":{"cwd":"$CWD"},"args":{"name":"plan.md","content":"# Plan\nship\n"}}`, "$CWD", e.cwd)
	roundTrips(b, e.vars, write, e.bin, "helper") // warm the page cache and create the note
	cases := []struct{ name, req string }{
		{"version", `{"v":1,"op":"version"}`},
		{"notes.read", `{"v":1,"op":"notes.read","caller":{"cwd":"$CWD"},"args":{"name":"plan.md"}}`},
		{"limits", `{"v":1,"op":"limits","caller":{"harness":"claude"},"args":{"model":"m","model_window":200000}}`},
		{"history.list", `{"v":1,"op":"history.list","args":{"session":"claude:0b5e8a61-7c1d-4f3e-9a2b-000000000001","limit":20}}`},
	}
	binaries := []struct {
		name string
		argv []string
	}{
		{"light", []string{light, "helper"}},
		{"full", []string{e.bin, "helper"}},
	}
	for _, bin := range binaries {
		for _, c := range cases {
			req := strings.ReplaceAll(c.req, "$CWD", e.cwd)
			b.Run(bin.name+"/"+c.name, func(b *testing.B) { roundTrips(b, e.vars, req, bin.argv[0], bin.argv[1:]...) })
		}
	}
	b.Run("node-baseline", func(b *testing.B) {
		node, err := exec.LookPath("node")
		if err != nil {
			b.Fatal("node is not on PATH: the baseline needs Node.js")
		}
		roundTrips(b, e.vars, `{"v":1,"op":"notes.read","args":{"name":"plan.md"}}`, node, "-e", nodeBaseline)
	})
}
