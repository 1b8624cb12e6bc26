// pi-branch.ts — a tiny Pi extension used only by e2e/record.sh to make an
// in-file branch: `/branch <entryId>` moves the session leaf back to that
// entry (ctx.navigateTree with a summary of the abandoned branch), so the
// next prompt starts a second child of the entry in the same session file.
// Pi has no CLI flag or RPC command for this (RPC `fork` writes a new file).
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	pi.registerCommand("branch", {
		description: "Move the leaf to an entry id, summarizing the abandoned branch",
		handler: async (args, ctx) => {
			const id = (args || "").trim();
			if (!id) throw new Error("usage: /branch <entryId>");
			const result = await ctx.navigateTree(id, { summarize: true, label: "branch-point" });
			if (result.cancelled) throw new Error(`navigateTree(${id}) was cancelled`);
		},
	});
}
