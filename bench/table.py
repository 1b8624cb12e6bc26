#!/usr/bin/env python3
"""Markdown tables of the new-query step (issue #21) from results.json files.

Usage: table.py RESULTS_JSON [RESULTS_JSON ...]

Each file is one run of bench/run.sh (one corpus). The tables put, per
query, notesoup's index (a new query, the same query again), the raw
engine, rg -uu -F -i -c and deja-vu side by side, wall and CPU (user +
system of the whole process) from the same hyperfine run, then the index
builds and sizes, then the first query after a change. A figure the run
did not measure is "–".
"""
import json, sys

QUERIES = ("rare", "nowhere", "common", "nonascii")


def ms(s):
    if s is None:
        return "–"
    if s >= 1:
        return "%.2f s" % s
    return "%.0f ms" % (s * 1000) if s >= 0.1 else "%.1f ms" % (s * 1000)


def secs(s):
    return "–" if s is None else ("%.1f s" % s if s >= 10 else "%.2f s" % s)


def pick(hf, prefix):
    """The hyperfine entry whose command name starts with prefix."""
    for name, r in (hf or {}).items():
        if name.startswith(prefix):
            return r
    return None


def wc(r):
    """wall / CPU of a hyperfine entry."""
    if r is None:
        return "–"
    return "%s / %s" % (ms(r["mean_s"]), ms(r["user_s"] + r["system_s"]))


def ratio(a, b):
    if a is None or b is None or b["mean_s"] == 0:
        return "–"
    return "%.2fx / %.2fx" % (a["mean_s"] / b["mean_s"], (a["user_s"] + a["system_s"]) / max(1e-9, b["user_s"] + b["system_s"]))


def corpus_name(doc):
    c = doc.get("corpus") or {}
    kind = "replica" if "copies" in c else "generated"
    files = c.get("files") or c.get("sessions") or 0
    return "%s %.2f GB, %s files" % (kind, (c.get("bytes") or doc["newquery"]["corpus_bytes"]) / 1e9, "{:,}".format(files))


def cpu_of(d):
    return None if d is None else d["user_s"] + d["system_s"]


def main(paths):
    docs = [json.load(open(p)) for p in paths]
    docs = [d for d in docs if d.get("newquery")]
    if not docs:
        return  # no run had the newquery step (BENCH_STEPS)
    print("| corpus | query | sessions | rg wall / CPU | index, new: wall / CPU | new ÷ rg | index, again | raw engine, new | deja-vu |")
    print("|---|---|---|---|---|---|---|---|---|")
    for d in docs:
        for q in QUERIES:
            r = d["newquery"]["queries"].get(q)
            if not r:
                continue
            hf = r["hyperfine"]
            rg, new = pick(hf, "rg "), pick(hf, "notesoup index new")
            print("| %s | %s | %s | %s | **%s** | %s | %s | %s | %s |" % (
                corpus_name(d), q, "{:,}".format(r["sessions"]), wc(rg), wc(new), ratio(new, rg),
                wc(pick(hf, "notesoup index again")), wc(pick(hf, "notesoup raw new")),
                wc(pick(r.get("deja_hyperfine"), "deja "))))
    print()
    print("| corpus | index build: searches, wall / CPU | index size | deja-vu build: wall / CPU, peak RSS | deja-vu size |")
    print("|---|---|---|---|---|")
    for d in docs:
        n = d["newquery"]
        b, size, total = n["index"]["build"], n["index"]["bytes"], n["corpus_bytes"]
        dj = n.get("deja_index") or {}
        db = dj.get("build")
        print("| %s | %s, %s / %s | %.0f MB (%.1f %%) | %s | %s |" % (
            corpus_name(d), n["index"].get("searches_to_build"), secs(b["wall_s"]), secs(cpu_of(b)),
            size / 1e6, 100.0 * size / total,
            "–" if db is None else "%s / %s, %.2f GB" % (secs(db["wall_s"]), secs(cpu_of(db)), db.get("max_rss_kb", 0) / 1e6),
            "–" if not dj.get("bytes") else "%.0f MB (%.1f %%)" % (dj["bytes"] / 1e6, 100.0 * dj["bytes"] / total)))
    print()
    print("| corpus | after an append | after a new session | rg after a change | ratio to rg (worse of the two) |")
    print("|---|---|---|---|---|")
    for d in docs:
        hf = d["newquery"].get("after_change")
        if not hf:
            continue
        a, s, rg = pick(hf, "notesoup after an append"), pick(hf, "notesoup after a new session"), pick(hf, "rg ")
        worst = max((x for x in (a, s) if x), key=lambda x: x["mean_s"], default=None)
        print("| %s | %s | %s | %s | %s |" % (corpus_name(d), wc(a), wc(s), wc(rg), ratio(worst, rg)))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
