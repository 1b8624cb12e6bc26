// Integration maps Pi's extension events onto notesoup's reset flow
// (shared/reset, stepped through the helper's reset.event) and performs the
// actions the flow answers. It decides nothing itself: budget points come
// from the helper's limits, texts from text.warning / boot, and every
// transition from reset.event. What it adds is Pi plumbing: which Pi event
// is which flow event, and how an action is done in Pi.
import { existsSync } from "node:fs";
import { bootOpening, contentText, errText, tokenCount, windowId } from "./common/format.ts";
import { actionsOf, answerText, type Action, type Limits, markerIn } from "./common/helper-client.ts";
import { StepTracker } from "./common/step-tracker.ts";
import type { Call, Caller } from "./helper.ts";
import { HelperError } from "./helper.ts";

/** BOOT_TYPE is the customType of the boot message injected at session start. */
export const BOOT_TYPE = "notesoup-boot";
/** WARNING_TYPE is the customType of the budget warning message. */
export const WARNING_TYPE = "notesoup-warning";
/** CLOSEOUT_TYPE is the customType of the hidden /notesoup empty close-out. */
export const CLOSEOUT_TYPE = "notesoup-closeout";
/** RESET_TOOL is the reset tool's name in Pi (no prefix). */
export const RESET_TOOL = "empty_brain";
/**
 * CONTINUATION_PROMPT is the one plugin-origin prompt after a committed
 * reset. The handoff paragraph and the last word are already in the boot,
 * so it only hands the turn back to the model.
 */
export const CONTINUATION_PROMPT = "Continue from your notes and the handoff above.";
/**
 * CUTOFF_TEXT replaces the aborted answer of a run we ended at a step: the
 * run ended on purpose, so it is recorded as a finished answer saying so
 * (print mode would otherwise report "Request was aborted" and exit 1).
 */
export const CUTOFF_TEXT = "[notesoup: the turn ended here so the context window can be reset]";
/**
 * NONE_KEPT is the firstKeptEntryId of a notesoup compaction: an id that is
 * never on the path, so Pi keeps nothing from before the reset (pi.md §3.4
 * step 3) and a later compaction starts right after ours.
 */
export const NONE_KEPT = "notesoup-none";

/** The parts of Pi's ExtensionAPI the integration sends through. */
export interface PiSink {
	sendMessage(message: { customType: string; content: string; display: boolean; details?: unknown }, options?: { triggerTurn?: boolean; deliverAs?: "steer" | "followUp" | "nextTurn" }): void;
	sendUserMessage(content: string, options?: { deliverAs?: "steer" | "followUp" }): void;
}

/** The parts of Pi's ExtensionContext the integration reads. */
export interface Ctx {
	cwd: string;
	hasUI?: boolean;
	ui?: { notify(message: string, type?: "info" | "warning" | "error"): void };
	model?: { id?: string; provider?: string; contextWindow?: number } | undefined;
	sessionManager: {
		getSessionId(): string;
		getSessionFile(): string | undefined;
		getBranch(): any[];
	};
	getContextUsage(): { tokens: number | null; contextWindow: number; percent: number | null } | undefined;
	isIdle(): boolean;
	abort(): void;
	compact(options?: { customInstructions?: string; onComplete?: (r: unknown) => void; onError?: (e: Error) => void }): void;
}

/** Log receives diagnostics (stderr in Pi; never stdout). */
export type Log = (message: string) => void;

/**
 * PrintOut writes answer text to stdout. Given only in print mode's text
 * output (`pi -p`), where Pi prints the last message of the prompt's run
 * and nothing of a run that starts after it (a reset's continuation).
 */
export type PrintOut = (text: string) => void;

/**
 * Integration holds the per-runtime plumbing state. The reset flow's state
 * lives in the helper's store; what is kept here is only what Pi events need
 * to be told apart (who started the next turn, which tool calls asked to end
 * the batch, which compaction is ours).
 */
export class Integration {
	private readonly call: Call;
	private readonly pi: PiSink;
	private readonly log: Log;
	/** cap is the runtime cap (/notesoup cap), held for this runtime only. */
	cap: string | undefined;
	private limitsMemo: { key: string; value: Limits } | undefined;
	/** sessionId is the session the last session_start bound. */
	private sessionId: string | undefined;
	/** nextOrigin is the origin of the next turn we start ourselves. */
	private nextOrigin: "continuation" | "closeout" | undefined;
	/** inputWaiting: natural input accepted while busy, not yet at a model request. */
	private inputWaiting = false;
	/** requestsInRun counts the model requests of the current run. */
	private requestsInRun = 0;
	/**
	 * steps keeps what reset.event answers said of step events (the shared
	 * step_needed rule): while no cutoff is armed in a recorded run they are
	 * left out, one helper process less before each model request.
	 */
	private readonly steps = new StepTracker();
	/** lastMeasured is the context size measured last (each is checked once). */
	private lastMeasured: number | undefined;
	/** measuring serializes measurements. */
	private measuring: Promise<unknown> = Promise.resolve();
	/** selfAbort: we aborted the run for an end_turn action. */
	private selfAbort = false;
	/** marker of our compaction attempt in flight (install_boot answered). */
	private committing: string | undefined;
	/** continuation requested by a commit, sent once the compaction returns. */
	private continuationDue = false;
	/** pending is work Pi does not await (continuations); shutdown waits for it. */
	private readonly pending = new Set<Promise<unknown>>();
	/** origin of the run in progress (what agentStart or closeOut said). */
	private runOrigin: "natural" | "continuation" | "closeout" = "natural";
	/** runActive: a run has started (turn_started sent) and not yet ended. */
	private runActive = false;
	/** resetInRun: empty_brain was accepted in the run in progress. */
	private resetInRun = false;
	/** printOut, when set, receives what print mode would not print (see owed). */
	private readonly printOut: PrintOut | undefined;
	/**
	 * owed holds, in print mode, the answers Pi does not print: a run that
	 * ended at empty_brain (its last message is the tool result, so Pi
	 * prints nothing) and every continuation run (it starts after Pi has
	 * printed). Written at shutdown, after Pi's own output.
	 */
	private readonly owed: string[] = [];

	constructor(call: Call, pi: PiSink, log: Log, printOut?: PrintOut) {
		this.call = call;
		this.pi = pi;
		this.log = log;
		this.printOut = printOut;
	}

	/** caller binds the helper to this Pi session, project and transcript. */
	caller(ctx: Ctx): Caller {
		const c: Caller = { harness: "pi", cwd: ctx.cwd };
		const id = ctx.sessionManager.getSessionId();
		if (id) c.session = id;
		// Pi writes the file lazily (after the first answer): a path that
		// does not exist yet would be refused, so it is left out until then.
		const file = ctx.sessionManager.getSessionFile();
		if (file && existsSync(file)) c.transcript = file;
		return c;
	}

	/**
	 * event steps the reset flow with one event and returns its actions,
	 * keeping what the answer says of step events by the shared rule
	 * (common/step-tracker.ts: a false counts only from a call no other
	 * reset.event overlapped).
	 */
	async event(ctx: Ctx, ev: Record<string, unknown>): Promise<Action[]> {
		const c = this.caller(ctx);
		const r = await this.steps.track(c.session, () => this.call({ op: "reset.event", caller: c, args: ev }), (answer) => answer);
		const acts = actionsOf(r);
		for (const a of acts) {
			if (a.kind === "nothing" && a.message) this.log(`reset ${ev.type}: ${a.message}`);
		}
		return acts;
	}

	// ---------------------------------------------------------------------
	// Tools

	/** tool answers a shared tool (notes_*, history_*) through its helper op. */
	async tool(op: string, params: unknown, ctx: Ctx, signal?: AbortSignal): Promise<{ text: string; data: unknown }> {
		const r = await this.call({ op, caller: this.caller(ctx), args: params ?? {} }, signal);
		return { text: answerText(r), data: r?.data };
	}

	/**
	 * emptyBrain records a reset request. The flow refuses bad arguments
	 * before recording anything; a refusal is thrown so Pi marks the result
	 * as an error. An accepted request ends the tool batch (terminate), so
	 * Pi makes no further model request in this run.
	 */
	async emptyBrain(params: Record<string, unknown>, ctx: Ctx): Promise<{ text: string; terminate: boolean }> {
		const ev: Record<string, unknown> = { type: "reset_requested" };
		ev.terminate = Object.prototype.hasOwnProperty.call(params, "terminate") ? params.terminate : false;
		if (Object.prototype.hasOwnProperty.call(params, "last_word")) ev.last_word = params.last_word;
		const acts = await this.event(ctx, ev);
		const refused = acts.find((a) => a.kind === "refuse");
		if (refused) throw new HelperError("refused", refused.message ?? "empty_brain refused");
		const msg = acts.find((a) => a.message)?.message ?? "reset requested";
		this.resetInRun = true;
		return { text: `${msg}.`, terminate: true };
	}

	/** limits resolves the budget points for the current model and cap. */
	async limits(ctx: Ctx): Promise<Limits> {
		const model = ctx.model;
		const usage = ctx.getContextUsage();
		const window = model?.contextWindow ?? usage?.contextWindow ?? 0;
		const key = JSON.stringify([model?.provider, model?.id, window, this.cap ?? ""]);
		if (this.limitsMemo?.key === key) return this.limitsMemo.value;
		const args: Record<string, unknown> = {};
		if (model?.id) args.model = model.id;
		if (window > 0) args.model_window = window;
		if (usage) args.usage = { contextWindow: usage.contextWindow };
		if (this.cap) args.cap = this.cap;
		const value: Limits = await this.call({ op: "limits", caller: this.caller(ctx), args });
		this.limitsMemo = { key, value };
		return value;
	}

	/** contextReport is get_context_remaining's answer. */
	async contextReport(ctx: Ctx): Promise<{ text: string; data: unknown }> {
		const usage = ctx.getContextUsage();
		const l = await this.limits(ctx);
		const tokens = usage?.tokens ?? null;
		const lines: string[] = [];
		lines.push(tokens === null ? "Context: not measured yet (no model answer since the window started)." : `Context: ${tokenCount(tokens)} tokens used of a ${tokenCount(usage!.contextWindow)}-token window.`);
		if (l.resolved) {
			lines.push(`Warning point: ${tokenCount(l.warning!)} tokens. Hard point (automatic reset): ${tokenCount(l.hard!)} tokens. Source: ${l.source}${this.cap ? `, cap ${this.cap}` : ""}.`);
			if (tokens !== null) lines.push(`Tokens left before the automatic reset: ${tokenCount(Math.max(0, l.hard! - tokens))}.`);
			if (l.auto_reset === false) lines.push("Automatic resets are off (compaction.enabled is false); empty_brain still works.");
		} else {
			lines.push(`Budget points unresolved: ${l.reason ?? "unknown reason"}; no warning or automatic reset in this window.`);
		}
		return { text: lines.join("\n") + "\n", data: { usage, limits: l, cap: this.cap ?? null } };
	}

	// ---------------------------------------------------------------------
	// Boot

	/**
	 * bootPresent reports whether the current window already holds this
	 * session's boot: a compaction we answered (its summary is the boot) or
	 * an injected boot message after the last compaction.
	 */
	bootPresent(ctx: Ctx): boolean {
		const want = bootOpening("pi", ctx.sessionManager.getSessionId());
		const branch = ctx.sessionManager.getBranch();
		for (let i = branch.length - 1; i >= 0; i--) {
			const e = branch[i];
			if (e?.type === "compaction") return typeof e.summary === "string" && e.summary.includes(want);
			if (e?.type === "custom_message" && e.customType === BOOT_TYPE && contentText(e.content).includes(want)) return true;
		}
		return false;
	}

	/** ordinal is the current window's ordinal: the decoder's, else the flow's. */
	async ordinal(ctx: Ctx): Promise<number> {
		const c = this.caller(ctx);
		if (c.transcript) {
			try {
				const r = await this.call({ op: "history.state", caller: c, args: { session: `pi:${c.session}` } });
				if (typeof r?.ordinal === "number") return r.ordinal;
			} catch (e) {
				this.log(`history.state: ${errText(e)}; using the reset flow's window`);
			}
		}
		const st = await this.call({ op: "reset.state", caller: c });
		return typeof st?.window === "number" ? st.window : 0;
	}

	/** sessionStart injects the boot unless this window already has it. */
	async sessionStart(ctx: Ctx): Promise<void> {
		this.limitsMemo = undefined;
		const id = ctx.sessionManager.getSessionId();
		if (this.sessionId !== undefined && this.sessionId !== id) {
			// The cap belongs to a session identity (docs/reset.md).
			this.cap = undefined;
		}
		this.sessionId = id;
		if (this.bootPresent(ctx)) return;
		const ordinal = await this.ordinal(ctx);
		const boot = await this.call({ op: "boot", caller: this.caller(ctx), args: { ordinal } });
		this.pi.sendMessage({ customType: BOOT_TYPE, content: answerText(boot), display: false, details: { window: windowId("pi", ctx.sessionManager.getSessionId(), ordinal) } });
	}

	// ---------------------------------------------------------------------
	// Turns

	/** input: natural input (not ours) is accepted by Pi. */
	async input(source: string, ctx: Ctx): Promise<void> {
		if (source === "extension") return;
		if (!ctx.isIdle()) this.inputWaiting = true;
		await this.event(ctx, { type: "input_accepted" });
	}

	/** agentStart: a run begins (before_agent_start), with its origin. */
	async agentStart(ctx: Ctx): Promise<void> {
		const origin = this.nextOrigin ?? "natural";
		this.nextOrigin = undefined;
		this.selfAbort = false;
		this.requestsInRun = 0;
		this.runOrigin = origin;
		this.resetInRun = false;
		this.runActive = true;
		await this.event(ctx, { type: "turn_started", origin });
	}

	/**
	 * step runs before every model request of a run (Pi's context event,
	 * which Pi awaits before sending). The first request of a run is the
	 * turn's start; every later one is a step of the flow, sent unless the
	 * last answer said steps cannot matter (step_needed). Natural input
	 * steered into the run reaches the model with this request. An end_turn
	 * answer aborts the run before the request is sent (the tools of the
	 * batch have all finished by then).
	 */
	async step(ctx: Ctx): Promise<void> {
		if (!this.runActive) {
			// A run Pi started without before_agent_start: the retry after
			// an overflow compaction, or after a retryable error. It is the
			// same turn's input, so a natural turn.
			await this.agentStart(ctx);
		}
		if (this.inputWaiting) {
			this.inputWaiting = false;
			await this.event(ctx, { type: "input_delivered" });
		}
		if (this.requestsInRun++ === 0) return;
		if (!this.steps.stepNeeded(ctx.sessionManager.getSessionId())) return;
		const acts = await this.event(ctx, { type: "step" });
		if (acts.some((a) => a.kind === "end_turn")) {
			this.selfAbort = true;
			ctx.abort();
		}
	}

	/**
	 * contextMessages keeps only the newest boot message in what the model
	 * is sent: a fork or clone copies the parent's boot (with the parent's
	 * window id) before this session's own is injected.
	 */
	contextMessages(messages: any[]): any[] | undefined {
		let last = -1;
		let n = 0;
		messages.forEach((m, i) => {
			if (m?.role === "custom" && m.customType === BOOT_TYPE) {
				last = i;
				n++;
			}
		});
		if (n <= 1) return undefined;
		return messages.filter((m, i) => !(m?.role === "custom" && m.customType === BOOT_TYPE) || i === last);
	}

	/**
	 * messageEnd rewrites the aborted answer of a run we ended ourselves
	 * into a finished one (see CUTOFF_TEXT); any other message is kept.
	 */
	messageEnd(message: any): { message: any } | undefined {
		if (!this.selfAbort || message?.role !== "assistant" || message.stopReason !== "aborted") return undefined;
		const { errorMessage: _dropped, ...rest } = message;
		return { message: { ...rest, stopReason: "stop", content: [{ type: "text", text: CUTOFF_TEXT }] } };
	}

	/**
	 * toolResult measures the context after the answer that called the tool
	 * and, once per window, appends the budget warning to the tool's result:
	 * the model reads it with the next request of this run.
	 */
	async toolResult(content: unknown[], ctx: Ctx): Promise<{ content: unknown[] } | undefined> {
		const warning = await this.measure(ctx);
		if (!warning) return undefined;
		return { content: [...(Array.isArray(content) ? content : []), { type: "text", text: `\n\n${warning}` }] };
	}

	/**
	 * measure compares the measured context with the budget points (each
	 * measurement once): past the hard point the flow gets budget_hard; past
	 * the warning point, once per window, the warning text is returned for
	 * the caller to deliver (and the flow is told it was). Serialized, so
	 * parallel tool results cannot deliver two warnings.
	 */
	measure(ctx: Ctx): Promise<string | undefined> {
		const run = this.measuring.then(() => this.measureNow(ctx));
		this.measuring = run.then(
			() => undefined,
			() => undefined,
		);
		return run;
	}

	private async measureNow(ctx: Ctx): Promise<string | undefined> {
		const usage = ctx.getContextUsage();
		if (!usage || usage.tokens === null || usage.tokens === this.lastMeasured) return undefined;
		this.lastMeasured = usage.tokens;
		let l: Limits;
		try {
			l = await this.limits(ctx);
		} catch (e) {
			this.log(`limits: ${errText(e)}; budget checks skipped`);
			return undefined;
		}
		if (!l.resolved || l.hard === undefined || l.warning === undefined) return undefined;
		const tokens = usage.tokens;
		if (tokens >= l.hard) {
			await this.event(ctx, { type: "budget_hard", auto_reset_off: l.auto_reset === false });
			return undefined;
		}
		if (tokens < l.warning || l.warnings_enabled === false) return undefined;
		const st = await this.call({ op: "reset.state", caller: this.caller(ctx) });
		if (st?.warned) return undefined;
		const w = await this.call({ op: "text.warning", args: { reset_tool: RESET_TOOL, tokens_left: Math.max(0, l.hard - tokens) } });
		await this.event(ctx, { type: "warning_delivered" });
		return answerText(w);
	}

	/**
	 * agentEnd ends the turn in the flow and, when it says so, runs our
	 * compaction now (Pi checks its own auto-compaction right after this
	 * handler, and then finds ours newer). A continuation is sent after the
	 * handler returns, because Pi's event queue is still busy with this one.
	 */
	async agentEnd(messages: any[], ctx: Ctx): Promise<void> {
		let last: any;
		for (let i = messages.length - 1; i >= 0; i--) {
			if (messages[i]?.role === "assistant") {
				last = messages[i];
				break;
			}
		}
		// A final answer without tool calls is measured here: its warning
		// goes with the next prompt, its hard point resets after this turn.
		const warning = await this.measure(ctx);
		if (warning) this.pi.sendMessage({ customType: WARNING_TYPE, content: warning, display: true }, { deliverAs: "nextTurn" });
		let type = "turn_completed";
		if (this.selfAbort) type = "turn_completed";
		else if (last?.stopReason === "aborted") type = "turn_aborted";
		else if (last?.stopReason === "error") type = "turn_failed";
		this.selfAbort = false;
		this.inputWaiting = false;
		this.runActive = false;
		this.owe(messages);
		const acts = await this.event(ctx, { type });
		await this.perform(acts, ctx);
	}

	/**
	 * owe keeps, in print mode, the answer of a run Pi will not print: a
	 * continuation's final text, or the text before empty_brain of a run
	 * that ended there.
	 */
	private owe(messages: any[]): void {
		if (!this.printOut) return;
		const origin = this.runOrigin;
		const ended = this.resetInRun;
		this.runOrigin = "natural";
		this.resetInRun = false;
		if (origin === "closeout") return; // hidden: the person asked for a reset, not an answer
		if (origin !== "continuation" && !(ended && messages[messages.length - 1]?.role !== "assistant")) return;
		for (let i = messages.length - 1; i >= 0; i--) {
			const m = messages[i];
			if (m?.role !== "assistant") continue;
			const text = contentText(m.content).trim();
			if (text && text !== CUTOFF_TEXT) {
				this.owed.push(text);
				return;
			}
		}
	}

	/** flushOwed writes what print mode owes the person (see owed), once. */
	flushOwed(): void {
		if (!this.printOut || this.owed.length === 0) return;
		const text = this.owed.splice(0).join("\n\n");
		this.printOut(`${text}\n`);
	}

	/** perform does the actions the flow answered. */
	async perform(acts: Action[], ctx: Ctx): Promise<void> {
		for (const a of acts) {
			switch (a.kind) {
				case "run_compaction":
					await this.compact(a.marker!, ctx);
					break;
				case "send_continuation":
					this.continuationDue = true;
					break;
				case "report_dropped":
					this.notify(ctx, "notesoup: the continuation after the reset was dropped; send a prompt to continue.", "warning");
					break;
				case "refuse":
					this.notify(ctx, `notesoup: ${a.message}`, "warning");
					break;
				case "submit_closeout":
					await this.closeOut(ctx);
					break;
			}
		}
		if (this.continuationDue) this.sendContinuation(ctx);
	}

	/** compact runs Pi's compaction with our marker and waits for it. */
	compact(marker: string, ctx: Ctx): Promise<void> {
		return new Promise<void>((resolve) => {
			ctx.compact({
				customInstructions: marker,
				onComplete: () => resolve(),
				onError: (err) => {
					this.log(`compaction ${marker} failed: ${err.message}`);
					const committing = this.committing;
					this.committing = undefined;
					// A veto we answered ourselves was already reported.
					const ev = committing === marker ? "compaction_failed" : undefined;
					const done = ev ? this.event(ctx, { type: ev, marker }).then(() => undefined) : Promise.resolve();
					done.catch((e) => this.log(`reset ${ev}: ${errText(e)}`)).finally(() => resolve());
				},
			});
		});
	}

	/**
	 * beforeCompact answers every compaction of the main conversation: ours
	 * (marker in the instructions) and Pi's own (threshold, overflow, a
	 * user's /compact) alike, with the fresh boot and the handoff paragraph
	 * instead of a summary. undefined lets Pi summarize (only when the boot
	 * cannot be built for Pi's own compaction); {cancel} vetoes.
	 */
	async beforeCompact(ev: { customInstructions?: string; preparation: { tokensBefore: number }; branchEntries?: any[] }, ctx: Ctx): Promise<any> {
		const marker = markerIn(ev.customInstructions) || undefined;
		let acts: Action[];
		try {
			acts = await this.event(ctx, marker ? { type: "compaction_started", marker } : { type: "native_compaction" });
		} catch (e) {
			// Ours must never fall through to Pi's summarizer (the window
			// would be summarized, not reset); Pi's own then summarizes.
			this.log(`compaction: ${errText(e)}`);
			return marker ? { cancel: true } : undefined;
		}
		const refused = acts.find((a) => a.kind === "refuse");
		if (refused) {
			this.notify(ctx, `notesoup: compaction refused: ${refused.message}`, "warning");
			return { cancel: true };
		}
		const install = acts.find((a) => a.kind === "install_boot");
		if (!install) return marker ? { cancel: true } : undefined;
		let boot: any;
		try {
			boot = await this.call({
				op: "boot",
				caller: this.caller(ctx),
				args: { ordinal: install.window ?? 0, sticky: install.last_word || undefined, handoff: install.handoff_text || undefined },
			});
		} catch (e) {
			this.log(`boot for the new window failed: ${errText(e)}`);
			if (marker) {
				await this.event(ctx, { type: "compaction_vetoed", marker });
				return { cancel: true };
			}
			return undefined;
		}
		if (marker) this.committing = marker;
		// Pi's own compaction after a failed request (a context overflow,
		// which Pi retries at once from what the compaction keeps): the
		// turn's input had no answer, so it is kept after the boot, or the
		// retry would hold only the boot and the person's prompt be lost.
		const kept = marker ? undefined : unansweredInput(ev.branchEntries);
		return {
			compaction: {
				summary: answerText(boot),
				firstKeptEntryId: kept ?? NONE_KEPT,
				tokensBefore: ev.preparation.tokensBefore,
				details: { notesoup: { window: windowId("pi", ctx.sessionManager.getSessionId(), install.window ?? 0), marker: marker ?? null, pool: install.pool, handoff: install.handoff } },
			},
		};
	}

	/**
	 * compacted: Pi wrote the compaction entry. Ours commits only when the
	 * written entry carries our marker and the boot (the evidence).
	 */
	async compacted(entry: any, ctx: Ctx): Promise<void> {
		const marker = this.committing;
		if (!marker) return;
		this.committing = undefined;
		const details = entry?.details?.notesoup;
		const evidence = details?.marker === marker && typeof entry?.summary === "string" && entry.summary.includes("<notesoup-boot ");
		const acts = await this.event(ctx, evidence ? { type: "compaction_committed", marker, evidence: true } : { type: "compaction_failed", marker });
		for (const a of acts) if (a.kind === "send_continuation") this.continuationDue = true;
	}

	/** sendContinuation sends the one continuation prompt, after Pi's queue moves on. */
	private sendContinuation(ctx: Ctx): void {
		this.continuationDue = false;
		this.nextOrigin = "continuation";
		this.track(
			new Promise<void>((resolve) => {
				setTimeout(() => {
					try {
						this.pi.sendUserMessage(CONTINUATION_PROMPT);
					} catch (e) {
						this.nextOrigin = undefined;
						this.event(ctx, { type: "continuation_dropped" })
							.then((acts) => this.perform(acts, ctx))
							.catch((err) => this.log(`continuation_dropped: ${errText(err)}`));
					}
					resolve();
				}, 0);
			}),
		);
	}

	/**
	 * closeOut submits the hidden close-out as a turn: the text of a reset
	 * a person asked for (text.closeout), not the budget warning, whose
	 * "nearly full" and countdown are false in a window of a few thousand
	 * tokens.
	 */
	private async closeOut(ctx: Ctx): Promise<void> {
		try {
			const w = await this.call({ op: "text.closeout", args: { reset_tool: RESET_TOOL } });
			// sendMessage(triggerTurn) starts the run without a prompt, so
			// without before_agent_start: the turn is started here.
			await this.event(ctx, { type: "turn_started", origin: "closeout" });
			this.requestsInRun = 0;
			this.runOrigin = "closeout";
			this.resetInRun = false;
			this.runActive = true;
			this.pi.sendMessage({ customType: CLOSEOUT_TYPE, content: answerText(w), display: false }, { triggerTurn: true });
			// Pi starts that run without awaiting it: shutdown (print mode)
			// must still see it, so it waits through a tick and then idles.
			this.track(new Promise((r) => setTimeout(r, 0)));
		} catch (e) {
			this.nextOrigin = undefined;
			this.log(`close-out: ${errText(e)}`);
			await this.event(ctx, { type: "closeout_failed" });
		}
	}

	/** manualStop is /notesoup empty: reset now, no continuation. */
	async manualStop(ctx: Ctx): Promise<string> {
		const acts = await this.event(ctx, { type: "manual_stop" });
		const refused = acts.find((a) => a.kind === "refuse");
		if (refused) return `notesoup: ${refused.message}`;
		await this.perform(acts, ctx);
		if (acts.some((a) => a.kind === "run_compaction")) return "notesoup: window emptied; waiting for your next prompt.";
		if (acts.some((a) => a.kind === "submit_closeout")) return "notesoup: the model gets one turn to save notes, then the window is emptied (no continuation).";
		return "notesoup: the window is emptied when the current turn ends (no continuation).";
	}

	/** status is /notesoup status. */
	async status(ctx: Ctx, binary: string): Promise<string> {
		const st = await this.call({ op: "reset.state", caller: this.caller(ctx) });
		const report = await this.contextReport(ctx);
		const req = st?.request ? `pending reset (${st.request.origin}${st.request.stop ? ", STOP" : ""}${st.request.terminate ? ", terminate" : ""})` : "no reset pending";
		return [
			`notesoup: binary ${binary}`,
			`Window ${windowId("pi", ctx.sessionManager.getSessionId(), st?.window ?? 0)}; ${req}; warning ${st?.warned ? "delivered" : "not delivered"} in this window.`,
			report.text.trimEnd(),
		].join("\n");
	}

	/** setCap is /notesoup cap VALUE|off: checked by the helper before it is kept. */
	async setCap(value: string, ctx: Ctx): Promise<string> {
		const v = value.trim().toLowerCase();
		if (v === "off") {
			this.cap = undefined;
			this.limitsMemo = undefined;
			return "notesoup: cap off; the model's own window applies.";
		}
		const prev = this.cap;
		this.cap = v;
		this.limitsMemo = undefined;
		try {
			const l = await this.limits(ctx);
			return `notesoup: cap ${v}: warning at ${tokenCount(l.warning ?? 0)}, automatic reset at ${tokenCount(l.hard ?? 0)} tokens.`;
		} catch (e) {
			this.cap = prev;
			this.limitsMemo = undefined;
			return `notesoup: cap ${value.trim()} refused: ${errText(e)}`;
		}
	}

	/** settled waits for work Pi does not await (a continuation run). */
	async settled(ctx: { isIdle(): boolean }, timeoutMs = SETTLE_TIMEOUT_MS): Promise<boolean> {
		const deadline = Date.now() + timeoutMs;
		while (this.pending.size > 0) {
			if (Date.now() > deadline) return false;
			const left = deadline - Date.now();
			let timer: ReturnType<typeof setTimeout> | undefined;
			await Promise.race([Promise.allSettled([...this.pending]), new Promise((r) => (timer = setTimeout(r, left)))]);
			// A pending timer would keep print mode's process alive.
			clearTimeout(timer);
			await waitIdle(ctx, deadline);
		}
		return ctx.isIdle();
	}

	/** guard tracks a hook's work so shutdown can wait for it, and returns it. */
	guard<T>(p: Promise<T>): Promise<T> {
		this.track(p);
		return p;
	}

	private track(p: Promise<unknown>): void {
		this.pending.add(p);
		p.then(
			() => this.pending.delete(p),
			() => this.pending.delete(p),
		);
	}

	notify(ctx: Ctx, message: string, type: "info" | "warning" | "error" = "info"): void {
		if (ctx.hasUI && ctx.ui) ctx.ui.notify(message, type);
		else this.log(message);
	}
}

/**
 * unansweredInput returns the id of the entry holding the current turn's
 * input when the turn's last model request failed (its last message entry
 * is an assistant error, as after a context overflow): the newest user
 * message since the last compaction. undefined when the turn was answered,
 * or no input is in this window.
 */
export function unansweredInput(entries: any[] | undefined): string | undefined {
	if (!Array.isArray(entries)) return undefined;
	let lastMessage: any;
	for (let i = entries.length - 1; i >= 0; i--) {
		const e = entries[i];
		if (e?.type === "compaction") return undefined;
		if (e?.type !== "message") continue;
		if (!lastMessage) {
			lastMessage = e.message;
			if (lastMessage?.role !== "assistant" || lastMessage.stopReason !== "error") return undefined;
		}
		if (e.message?.role === "user" && typeof e.id === "string") return e.id;
	}
	return undefined;
}

/** IDLE_POLL_MS is how often settled() checks whether Pi's run ended. */
const IDLE_POLL_MS = 20;

/**
 * SETTLE_TIMEOUT_MS bounds how long print mode's shutdown waits for a
 * continuation run: a whole agent run, so minutes, but never forever.
 */
export const SETTLE_TIMEOUT_MS = 15 * 60_000;

async function waitIdle(ctx: { isIdle(): boolean }, deadline: number): Promise<void> {
	// A continuation's run starts asynchronously after sendUserMessage.
	await new Promise((r) => setTimeout(r, IDLE_POLL_MS));
	while (!ctx.isIdle() && Date.now() < deadline) await new Promise((r) => setTimeout(r, IDLE_POLL_MS));
}
