// Tests of the Pi event mapping against the real notesoup binary (the reset
// flow, boot, limits and texts are its answers), with Pi's side faked: a
// context object that records aborts and runs compactions through the
// integration's own compaction hooks, as Pi does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { callHelper, type Request } from "../src/helper.ts";
import { BOOT_TYPE, CONTINUATION_PROMPT, CUTOFF_TEXT, Integration, NONE_KEPT, type Ctx, unansweredInput } from "../src/integration.ts";
import { BIN } from "./bin.ts";

/** A request whose answer waits until the test releases it. */
interface Hold {
	matches: (r: Request) => boolean;
	released: Promise<void>;
}

interface Fake {
	integ: Integration;
	ctx: Ctx & { tokens: number | null; aborted: number; entries: any[]; idle: boolean };
	requests: Request[];
	sent: any[];
	user: string[];
	logs: string[];
	/** hold delays the answer to the next request matches accepts until the returned function runs. */
	hold: (matches: (r: Request) => boolean) => () => void;
}

function setup(window = 200000, printed?: string[]): Fake {
	// A private notesoup home per test: reset state and notes start empty.
	process.env.NOTESOUP_HOME = mkdtempSync(join(tmpdir(), "pi-home-"));
	const requests: Request[] = [];
	const holds: Hold[] = [];
	const sent: any[] = [];
	const user: string[] = [];
	const logs: string[] = [];
	const call = async (req: Request, signal?: AbortSignal) => {
		requests.push(req);
		const answer = await callHelper(BIN, req, signal);
		// A held request has been applied by the helper; its answer waits.
		const held = holds.findIndex((h) => h.matches(req));
		if (held >= 0) await holds.splice(held, 1)[0].released;
		return answer;
	};
	const integ = new Integration(call, { sendMessage: (m) => sent.push(m), sendUserMessage: (t) => user.push(t) }, (m) => logs.push(m), printed ? (t) => printed.push(t) : undefined);
	const sid = `unit-${Math.random().toString(16).slice(2)}`;
	const cwd = mkdtempSync(join(tmpdir(), "pi-cwd-"));
	const ctx: Fake["ctx"] = {
		cwd,
		tokens: 1000,
		aborted: 0,
		entries: [],
		idle: true,
		model: { id: "fake-model", provider: "fake", contextWindow: window },
		sessionManager: { getSessionId: () => sid, getSessionFile: () => undefined, getBranch: () => ctx.entries },
		getContextUsage: () => ({ tokens: ctx.tokens, contextWindow: window, percent: null }),
		isIdle: () => ctx.idle,
		abort: () => {
			ctx.aborted++;
		},
		// Pi's compaction: session_before_compact, then the entry, then
		// session_compact (pi.md §4.6).
		compact: (opts) => {
			void (async () => {
				const r = await integ.beforeCompact({ customInstructions: opts?.customInstructions, preparation: { tokensBefore: 1234 }, branchEntries: ctx.entries }, ctx);
				if (r?.cancel || !r?.compaction) {
					opts?.onError?.(new Error("Compaction cancelled"));
					return;
				}
				const entry = { type: "compaction", ...r.compaction, fromHook: true };
				ctx.entries.push(entry);
				await integ.compacted(entry, ctx);
				opts?.onComplete?.(entry);
			})();
		},
	};
	const hold = (matches: (r: Request) => boolean) => {
		let release = () => {};
		const released = new Promise<void>((r) => (release = r));
		holds.push({ matches, released });
		return release;
	};
	return { integ, ctx, requests, sent, user, logs, hold };
}

const events = (f: Fake) => f.requests.filter((r) => r.op === "reset.event").map((r) => (r.args as any).type);
const settle = () => new Promise((r) => setTimeout(r, 30));

test("empty_brain: accepted ends the batch; bad terminate is refused before anything is recorded", async () => {
	const f = setup();
	await assert.rejects(f.integ.emptyBrain({ terminate: "yes" }, f.ctx), /terminate must be true or false/);
	const st0 = await callHelper(BIN, { op: "reset.state", caller: f.integ.caller(f.ctx) });
	assert.equal(st0.request, undefined, "a refused call records nothing");
	const r = await f.integ.emptyBrain({ last_word: "next: tests" }, f.ctx);
	assert.equal(r.terminate, true);
	const st = await callHelper(BIN, { op: "reset.state", caller: f.integ.caller(f.ctx) });
	assert.equal(st.request.last_word, "next: tests");
	assert.equal(st.request.terminate ?? false, false, "terminate defaults to false");
});

test("reset: empty_brain, run ends, compaction answered with the boot, one continuation", async () => {
	const f = setup();
	await f.integ.agentStart(f.ctx);
	await f.integ.step(f.ctx); // first request of the run: not a step
	await f.integ.emptyBrain({ last_word: "look at shopping.md" }, f.ctx);
	await f.integ.agentEnd([{ role: "assistant", stopReason: "toolUse" }], f.ctx);
	await settle();
	assert.deepEqual(events(f), ["turn_started", "reset_requested", "turn_completed", "compaction_started", "compaction_committed"]);
	const comp = f.ctx.entries.find((e) => e.type === "compaction");
	assert.ok(comp, "a compaction entry was written");
	assert.equal(comp.firstKeptEntryId, NONE_KEPT);
	assert.match(comp.summary, new RegExp(`<notesoup-boot window="pi:${f.ctx.sessionManager.getSessionId()}:1">`));
	assert.match(comp.summary, /look at shopping\.md/);
	assert.equal(comp.details.notesoup.pool, "normal");
	assert.deepEqual(f.user, [CONTINUATION_PROMPT], "exactly one continuation");
	// The continuation's own run does not continue again.
	await f.integ.agentStart(f.ctx);
	await f.integ.agentEnd([{ role: "assistant", stopReason: "stop" }], f.ctx);
	await settle();
	assert.equal(f.user.length, 1);
	assert.equal(events(f).at(-2), "turn_started");
	assert.equal((f.requests.filter((r) => r.op === "reset.event").at(-2)!.args as any).origin, "continuation");
});

test("reset with terminate:true and after a manual abort", async () => {
	const cases = [
		{ name: "terminate", params: { terminate: true }, stop: "toolUse", compactions: 1, continuations: 0 },
		{ name: "user aborted the run", params: {}, stop: "aborted", compactions: 0, continuations: 0 },
		{ name: "provider error", params: {}, stop: "error", compactions: 0, continuations: 0 },
	];
	for (const c of cases) {
		const f = setup();
		await f.integ.agentStart(f.ctx);
		await f.integ.emptyBrain(c.params, f.ctx);
		await f.integ.agentEnd([{ role: "assistant", stopReason: c.stop }], f.ctx);
		await settle();
		assert.equal(f.ctx.entries.filter((e) => e.type === "compaction").length, c.compactions, c.name);
		assert.equal(f.user.length, c.continuations, c.name);
	}
});

test("steps: left out while the flow says they cannot matter, sent again once a cutoff is armed", async () => {
	const f = setup();
	await f.integ.agentStart(f.ctx);
	await f.integ.step(f.ctx); // first request of the run: not a step
	await f.integ.step(f.ctx);
	await f.integ.step(f.ctx);
	assert.deepEqual(events(f), ["turn_started"], "no cutoff armed: the steps change nothing and are not sent");
	await f.integ.emptyBrain({}, f.ctx); // arms the cutoff for this batch
	await f.integ.step(f.ctx);
	assert.deepEqual(events(f), ["turn_started", "reset_requested", "step"]);
	assert.equal(f.ctx.aborted, 1, "the step the cutoff needed was sent and ended the run");
});

test("steps: a stale answer that overlapped another event cannot hide the cutoff", async () => {
	const f = setup();
	await f.integ.agentStart(f.ctx);
	await f.integ.step(f.ctx); // first request of the run
	// Input Pi accepts as idle (so no delivery is pending on our side) is
	// applied first, with step_needed false, and answered last.
	const release = f.hold((r) => r.op === "reset.event" && (r.args as any).type === "input_accepted");
	const typed = f.integ.input("rpc", f.ctx);
	while (!events(f).includes("input_accepted")) await new Promise((r) => setTimeout(r, 5));
	await f.integ.emptyBrain({}, f.ctx); // applied second: the cutoff is armed (true)
	release();
	await typed;
	await f.integ.step(f.ctx);
	// The step must reach the flow: the cutoff is armed (and natural input
	// releases it there).
	assert.deepEqual(events(f), ["turn_started", "input_accepted", "reset_requested", "step"], "the overlapped false was not trusted: the step was sent");
});

test("budget: one warning per window, then the hard point ends the run at the next request", async () => {
	// Window 200,000: native 183,616, hard 175,424, warning 159,040.
	const f = setup(200000);
	await f.integ.agentStart(f.ctx);
	await f.integ.step(f.ctx);
	f.ctx.tokens = 150000;
	assert.equal(await f.integ.toolResult([], f.ctx), undefined, "below the warning point");
	f.ctx.tokens = 160010;
	const w = await f.integ.toolResult([{ type: "text", text: "ok" }], f.ctx);
	assert.equal(w?.content.length, 2);
	assert.match((w!.content[1] as any).text, /empty_brain — 15,414 tokens left before the automatic reset/);
	f.ctx.tokens = 165010;
	assert.equal(await f.integ.toolResult([], f.ctx), undefined, "the warning is delivered once per window");
	await f.integ.step(f.ctx);
	assert.equal(f.ctx.aborted, 0, "no cutoff before the hard point");
	f.ctx.tokens = 180010;
	await f.integ.toolResult([], f.ctx);
	await f.integ.step(f.ctx);
	assert.equal(f.ctx.aborted, 1, "the hard point ends the run before its next request");
	const rewritten = f.integ.messageEnd({ role: "assistant", stopReason: "aborted", errorMessage: "Request was aborted.", content: [] });
	assert.equal(rewritten?.message.stopReason, "stop");
	assert.equal(rewritten?.message.errorMessage, undefined);
	assert.deepEqual(rewritten?.message.content, [{ type: "text", text: CUTOFF_TEXT }]);
	await f.integ.agentEnd([{ role: "assistant", stopReason: "stop" }], f.ctx);
	await settle();
	const comp = f.ctx.entries.find((e) => e.type === "compaction");
	assert.equal(comp?.details.notesoup.pool, "forced");
	assert.deepEqual(f.user, [CONTINUATION_PROMPT]);
	assert.equal(f.integ.messageEnd({ role: "assistant", stopReason: "aborted" }), undefined, "a later abort is the user's");
});

test("Pi's own compaction is answered with the boot; a stale marker is vetoed", async () => {
	const f = setup();
	const r = await f.integ.beforeCompact({ preparation: { tokensBefore: 99 } }, f.ctx);
	assert.match(r.compaction.summary, /<notesoup-boot window="pi:[^"]+:1">/);
	assert.equal(r.compaction.tokensBefore, 99);
	assert.equal(r.compaction.details.notesoup.pool, "forced", "no tool call owns it");
	const v = await f.integ.beforeCompact({ customInstructions: "notesoup-reset:9:9", preparation: { tokensBefore: 1 } }, f.ctx);
	assert.deepEqual(v, { cancel: true });
});

test("boot at session start: injected once, not again while the window holds it", async () => {
	const f = setup();
	await f.integ.sessionStart(f.ctx);
	assert.equal(f.sent.length, 1);
	assert.equal(f.sent[0].customType, BOOT_TYPE);
	assert.equal(f.sent[0].display, false);
	assert.match(f.sent[0].content, new RegExp(`window="pi:${f.ctx.sessionManager.getSessionId()}:0"`));
	f.ctx.entries.push({ type: "custom_message", customType: BOOT_TYPE, content: f.sent[0].content });
	await f.integ.sessionStart(f.ctx);
	assert.equal(f.sent.length, 1, "reload/resume: no duplicate");
	// A forked session holds its parent's boot: it gets its own.
	f.ctx.entries[0] = { type: "custom_message", customType: BOOT_TYPE, content: '<notesoup-boot window="pi:parent:0">' };
	await f.integ.sessionStart(f.ctx);
	assert.equal(f.sent.length, 2);
});

test("contextMessages keeps only the newest boot", () => {
	const f = setup();
	const boot = (w: string) => ({ role: "custom", customType: BOOT_TYPE, content: w });
	const user = { role: "user", content: "hi" };
	const cases = [
		{ name: "one boot: untouched", in: [boot("a"), user], want: undefined },
		{ name: "two boots: the newest stays", in: [boot("a"), user, boot("b")], want: [user, boot("b")] },
	];
	for (const c of cases) assert.deepEqual(f.integ.contextMessages(c.in), c.want, c.name);
});

test("/notesoup cap: checked by the helper, applied to the points, off restores", async () => {
	const f = setup(200000);
	assert.match(await f.integ.setCap("100k", f.ctx), /cap 100k: warning at 59,040, automatic reset at 75,424 tokens/);
	assert.match(await f.integ.setCap("20k", f.ctx), /cap 20k refused: /);
	assert.equal(f.integ.cap, "100k", "a refused cap keeps the previous one");
	assert.match(await f.integ.setCap("off", f.ctx), /cap off/);
	assert.equal((await f.integ.limits(f.ctx)).hard, 175424);
});

test("/notesoup empty while idle: close-out turn, then reset without continuation", async () => {
	const f = setup();
	const msg = await f.integ.manualStop(f.ctx);
	assert.match(msg, /one turn to save notes/);
	assert.equal(f.sent.at(-1).customType, "notesoup-closeout");
	// The cause is the person's request: a window of 1,000 tokens is not
	// "nearly full", and there is no countdown to an automatic reset.
	const closeout: string = f.sent.at(-1).content;
	assert.match(closeout, /asked for this context window to be emptied/);
	assert.doesNotMatch(closeout, /nearly full|filled up|tokens left|automatic reset/);
	await f.integ.step(f.ctx);
	await f.integ.agentEnd([{ role: "assistant", stopReason: "stop" }], f.ctx);
	await settle();
	assert.equal(f.ctx.entries.filter((e) => e.type === "compaction").length, 1);
	assert.deepEqual(f.user, [], "STOP: no continuation");
});

test("get_context_remaining reports the measurement, the points with their source and the tokens left", async () => {
	const cases = [
		{ name: "measured", tokens: 100000 as number | null, want: [/Context: 100,000 tokens used of a 200,000-token window\./, /Warning point: 159,040 tokens\. Hard point \(automatic reset\): 175,424 tokens\. Source: pi: model window 200000/, /Tokens left before the automatic reset: 75,424\./] },
		{ name: "right after a reset", tokens: null, want: [/not measured yet/, /Hard point \(automatic reset\): 175,424/] },
	];
	for (const c of cases) {
		const f = setup(200000);
		f.ctx.tokens = c.tokens;
		const r = await f.integ.contextReport(f.ctx);
		for (const re of c.want) assert.match(r.text, re, c.name);
		if (c.tokens === null) assert.doesNotMatch(r.text, /Tokens left/, c.name);
	}
});

test("the cap is forgotten when the session identity changes, kept on reload", async () => {
	const f = setup(200000);
	await f.integ.sessionStart(f.ctx);
	await f.integ.setCap("100k", f.ctx);
	f.ctx.entries.push({ type: "custom_message", customType: BOOT_TYPE, content: f.sent[0].content });
	await f.integ.sessionStart(f.ctx);
	assert.equal(f.integ.cap, "100k", "same session (reload/resume of it)");
	f.ctx.sessionManager.getSessionId = () => "another-session";
	await f.integ.sessionStart(f.ctx);
	assert.equal(f.integ.cap, undefined, "new identity");
});

test("natural input during the reset run owns the continuation", async () => {
	const f = setup();
	await f.integ.input("interactive", f.ctx);
	await f.integ.agentStart(f.ctx);
	await f.integ.step(f.ctx);
	await f.integ.emptyBrain({}, f.ctx);
	f.ctx.idle = false;
	await f.integ.input("rpc", f.ctx); // the user types while the run is busy
	await f.integ.input("extension", f.ctx); // ours: not natural input
	await f.integ.agentEnd([{ role: "assistant", stopReason: "toolUse" }], f.ctx);
	await settle();
	assert.equal(events(f).filter((e) => e === "input_accepted").length, 2, "only the two natural inputs");
	assert.equal(f.ctx.entries.filter((e) => e.type === "compaction").length, 0, "undelivered input holds reset work back");
	// The queued input reaches the model in the next run; the reset then
	// runs after that turn, and the user's input, not ours, continues.
	f.ctx.idle = true;
	await f.integ.agentStart(f.ctx);
	await f.integ.step(f.ctx);
	await f.integ.agentEnd([{ role: "assistant", stopReason: "stop" }], f.ctx);
	await settle();
	assert.equal(f.ctx.entries.filter((e) => e.type === "compaction").length, 1);
	assert.deepEqual(f.user, [], "no continuation over natural input");
});

test("a final answer past the points: warning with the next prompt, reset after the turn", async () => {
	const f = setup(200000);
	await f.integ.agentStart(f.ctx);
	await f.integ.step(f.ctx);
	f.ctx.tokens = 160010;
	await f.integ.agentEnd([{ role: "assistant", stopReason: "stop" }], f.ctx);
	assert.equal(f.sent.length, 1);
	assert.equal(f.sent[0].customType, "notesoup-warning");
	assert.equal(f.ctx.entries.length, 0, "no reset below the hard point");
	await f.integ.agentStart(f.ctx);
	await f.integ.step(f.ctx);
	f.ctx.tokens = 180010;
	await f.integ.agentEnd([{ role: "assistant", stopReason: "stop" }], f.ctx);
	await settle();
	assert.equal(f.sent.length, 1, "no second warning");
	assert.equal(f.ctx.entries.filter((e) => e.type === "compaction").length, 1);
	assert.deepEqual(f.user, [CONTINUATION_PROMPT]);
});

test("settled waits for tracked work and a run to end, within its bound", async () => {
	const f = setup();
	assert.equal(await f.integ.settled(f.ctx, 1000), true, "nothing pending");
	let done = false;
	void f.integ.guard(new Promise((r) => setTimeout(() => r((done = true)), 50)));
	assert.equal(await f.integ.settled(f.ctx, 5000), true);
	assert.equal(done, true);
	f.ctx.idle = false; // a run that never ends
	void f.integ.guard(Promise.resolve());
	const t0 = Date.now();
	assert.equal(await f.integ.settled(f.ctx, 200), false);
	assert.ok(Date.now() - t0 < 2000, "bounded");
});

test("print mode: the text before empty_brain and the continuation's answer are printed at shutdown", async () => {
	const say = (text: string, extra: any = {}) => ({ role: "assistant", content: [{ type: "text", text }], ...extra });
	const cases = [
		{
			name: "reset and continuation",
			params: {},
			// The continuation's answer Pi never prints; the reset run's last
			// message is empty_brain's tool result, so Pi prints nothing of it.
			want: ["Notes saved; emptying my brain.\n\nThe shopping note says oat milk.\n"],
		},
		{ name: "terminate: no continuation", params: { terminate: true }, want: ["Notes saved; emptying my brain.\n"] },
	];
	for (const c of cases) {
		const printed: string[] = [];
		const f = setup(200000, printed);
		await f.integ.agentStart(f.ctx);
		await f.integ.step(f.ctx);
		await f.integ.emptyBrain(c.params, f.ctx);
		await f.integ.agentEnd([say("Notes saved; emptying my brain.", { stopReason: "toolUse" }), { role: "toolResult", content: [] }], f.ctx);
		await settle();
		if (f.user.length > 0) {
			await f.integ.agentStart(f.ctx);
			await f.integ.step(f.ctx);
			await f.integ.agentEnd([say("The shopping note says oat milk.", { stopReason: "stop" })], f.ctx);
		}
		assert.deepEqual(printed, [], `${c.name}: nothing is written before shutdown (Pi prints first)`);
		f.integ.flushOwed();
		f.integ.flushOwed();
		assert.deepEqual(printed, c.want, c.name);
	}
	// A plain run is Pi's to print; nothing is owed, and without print mode nothing is ever written.
	const printed: string[] = [];
	const f = setup(200000, printed);
	await f.integ.agentStart(f.ctx);
	await f.integ.agentEnd([say("hello", { stopReason: "stop" })], f.ctx);
	f.integ.flushOwed();
	assert.deepEqual(printed, []);
});

test("unansweredInput: the turn's input when its last request failed, else nothing", () => {
	const user = (id: string) => ({ type: "message", id, message: { role: "user", content: "big prompt" } });
	const asst = (id: string, stopReason: string) => ({ type: "message", id, message: { role: "assistant", stopReason } });
	const cases = [
		{ name: "overflow on the first request", in: [user("u1"), asst("a1", "stop"), user("u2"), asst("e", "error")], want: "u2" },
		{ name: "overflow after tool steps", in: [user("u1"), asst("a1", "toolUse"), { type: "message", id: "t", message: { role: "toolResult" } }, asst("e", "error")], want: "u1" },
		{ name: "answered turn (threshold compaction)", in: [user("u1"), asst("a1", "stop")], want: undefined },
		{ name: "input from before the last compaction", in: [user("u1"), { type: "compaction", id: "c" }, asst("e", "error")], want: undefined },
		{ name: "no entries", in: [], want: undefined },
		{ name: "not a list", in: undefined, want: undefined },
	];
	for (const c of cases) assert.equal(unansweredInput(c.in as any), c.want, c.name);
});

test("Pi's overflow compaction keeps the turn's input after the boot; our own keeps nothing", async () => {
	const f = setup();
	const branch = [
		{ type: "message", id: "u1", message: { role: "user", content: "Summarize this huge log" } },
		{ type: "message", id: "e1", message: { role: "assistant", stopReason: "error", errorMessage: "Your input exceeds the context window of this model" } },
	];
	const r = await f.integ.beforeCompact({ preparation: { tokensBefore: 99 }, branchEntries: branch }, f.ctx);
	assert.match(r.compaction.summary, /<notesoup-boot window="pi:[^"]+:1">/);
	assert.equal(r.compaction.firstKeptEntryId, "u1", "the prompt that overflowed is kept");
	// A reset of ours (marker) never keeps anything, even after an error.
	await f.integ.agentStart(f.ctx);
	await f.integ.emptyBrain({}, f.ctx);
	f.ctx.entries.push(...branch);
	await f.integ.agentEnd([{ role: "assistant", stopReason: "toolUse" }], f.ctx);
	await settle();
	const ours = f.ctx.entries.filter((e) => e.type === "compaction");
	assert.equal(ours.length, 1);
	assert.equal(ours[0].firstKeptEntryId, NONE_KEPT);
});

test("a run Pi starts without before_agent_start (the retry after an overflow) is a turn of its own", async () => {
	const f = setup();
	await f.integ.agentStart(f.ctx);
	await f.integ.step(f.ctx);
	await f.integ.agentEnd([{ role: "assistant", stopReason: "error" }], f.ctx);
	// Pi compacts and retries with agent.continue(): only context events.
	await f.integ.step(f.ctx);
	await f.integ.agentEnd([{ role: "assistant", stopReason: "stop" }], f.ctx);
	assert.deepEqual(events(f), ["turn_started", "turn_failed", "turn_started", "turn_completed"]);
});
