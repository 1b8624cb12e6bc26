#!/usr/bin/env python3
"""Collate bench/run.sh outputs into one JSON document (results.json).

Usage: collate.py OUT_DIR CORPUS_JSON
"""
import glob, json, os, platform, subprocess, sys, time

out, corpus_json = sys.argv[1], sys.argv[2]


def have(name):
    return os.path.exists(os.path.join(out, name))


def hyperfine(name):
    if not have(name + ".json"):
        return None  # step not run (BENCH_STEPS)
    with open(os.path.join(out, name + ".json")) as f:
        res = json.load(f)["results"]
    load = open(os.path.join(out, name + ".load")).read().strip()
    return {r["command"]: {"mean_s": r["mean"], "stddev_s": r["stddev"], "median_s": r["median"],
                           "min_s": r["min"], "user_s": r["user"], "system_s": r["system"],
                           "runs": len(r["times"]), "load_avg": load} for r in res}


def read_json(name):
    if not have(name):
        return None
    with open(os.path.join(out, name)) as f:
        return json.loads(f.read())


def cpu(name):
    if not have(name):
        return None
    u, s, e = open(os.path.join(out, name)).read().split()
    return {"user_s": float(u), "system_s": float(s), "wall_s": float(e)}


def cpu4(name):
    """user, system, wall and (when timed) peak RSS in KB."""
    if not have(name):
        return None
    # The last line: GNU time puts "Command exited with non-zero status 1"
    # first when a search finds nothing.
    v = open(os.path.join(out, name)).read().strip().splitlines()[-1].split()
    d = {"user_s": float(v[0]), "system_s": float(v[1]), "wall_s": float(v[2])}
    if len(v) > 3:
        d["max_rss_kb"] = int(v[3])
    return d


def num(name):
    return int(open(os.path.join(out, name)).read().strip()) if have(name) else None


def sh(cmd):
    try:
        return subprocess.check_output(cmd, shell=True, text=True, stderr=subprocess.DEVNULL).strip()
    except Exception:
        return ""


corpus = json.load(open(corpus_json))
doc = {
    "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    "commit": sh("git rev-parse --short HEAD"),
    "machine": {
        "cpu": sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2").strip(),
        "cores": os.cpu_count(),
        "mem": sh("free -h | awk '/Mem:/{print $2}'"),
        "kernel": platform.release(),
        "go": sh("go version"),
    },
    # What the corpus says of itself; the replica adds files (its subagent
    # transcripts too), copies and its own common and non-ASCII queries.
    "corpus": {k: corpus[k] for k in ("bytes", "files", "sessions", "copies", "seed", "harnesses", "needle", "common", "nonascii") if k in corpus},
    "decode": {},
    "search": hyperfine("search"),
    "search_cpu": {"cold": cpu("search-cold.cpu"), "warm": cpu("search-warm.cpu"), "rg": cpu("rg.cpu")},
    "search_stats": (read_json("search-cold.json") or {}).get("stats"),
    "sessions": hyperfine("sessions"),
    "helper": hyperfine("helper"),
    "memory_200mb": dict(read_json("mem.json"), max_rss_kb=int(open(os.path.join(out, "mem.rss")).read().strip().splitlines()[-1])) if have("mem.json") and have("mem.rss") else None,
    "gobench": open(os.path.join(out, "benchstat.txt")).read() if have("benchstat.txt") else "",
}
if have("index-build.cpu"):
    doc["newquery"] = {
        "corpus_bytes": num("corpus.bytes"),
        "index": {"build": cpu4("index-build.cpu"), "first_search": cpu4("index-first.cpu") if have("index-first.cpu") else None,
                  "searches_to_build": num("index-build.searches") if have("index-build.searches") else None, "bytes": num("index-build.bytes"), "load_avg": open(os.path.join(out, "index-build.load")).read().strip()},
        "deja_index": {"build": cpu4("deja-build.cpu"), "bytes": num("deja-build.bytes")} if have("deja-build.cpu") else None,
        "queries": {n: {"hyperfine": hyperfine("newquery-" + n), "notesoup_cpu": cpu4("newquery-%s.cpu" % n), "rg_cpu": cpu4("newquery-rg-%s.cpu" % n),
                        "notesoup_again_cpu": cpu4("newquery-again-%s.cpu" % n) if have("newquery-again-%s.cpu" % n) else None,
                        "notesoup_all_cpu": cpu4("newquery-all-%s.cpu" % n) if have("newquery-all-%s.cpu" % n) else None,
                        "notesoup_raw_cpu": cpu4("newquery-raw-%s.cpu" % n) if have("newquery-raw-%s.cpu" % n) else None,
                        "deja_hyperfine": hyperfine("newquery-deja-" + n),
                        "load_avg": open(os.path.join(out, "newquery-%s.load" % n)).read().strip() if have("newquery-%s.load" % n) else None,
                        "sessions": len((read_json("newquery-answer-%s.json" % n) or {}).get("sessions") or [])}
                    for n in ("rare", "nowhere", "common", "nonascii") if have("newquery-%s.txt" % n)},
        "after_append": {"cpu": cpu4("newquery-append.cpu"), "stats": open(os.path.join(out, "newquery-append.stats")).read().strip() if have("newquery-append.stats") else None},
        "after_change": hyperfine("newquery-changed"),
    }
for h in ("claude", "pi", "codex"):
    if have("decodeall-%s.json" % h):
        doc["decode"][h] = {"hyperfine": hyperfine("decode-" + h), "inprocess": read_json("decodeall-%s.json" % h)}
json.dump(doc, sys.stdout, indent=2)
print()
