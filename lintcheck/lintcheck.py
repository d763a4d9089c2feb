#!/usr/bin/env python3
"""Helper of lintcheck/run.sh: reads crates.toml, and collects what cuda-lint said.

    lintcheck.py plan CRATES_TOML [--all] [--only a,b]
        one line per crate to run, fields separated by \\x1f: name, version, cargo arguments
        (space-separated), env (space-separated KEY=VALUE), packages to `cargo update -p`
    lintcheck.py collect OUT_DIR CRATES_TOML
        reads OUT_DIR/results/NAME-VERSION.{json,stderr,unknown.stderr,time,unknown.time,rc}
        and writes OUT_DIR/findings.json, OUT_DIR/summary.md, OUT_DIR/unknown_apis.json;
        prints the summary.
    lintcheck.py report OUT_DIR TRIAGE_TOML
        joins OUT_DIR/findings.json with the triage: prints the findings table of REPORT.md and
        the counts per crate, lint and verdict; exits 1 if a finding has no triage entry (and
        lists triage entries that no longer match a finding).

Only the standard library (tomllib: Python 3.11 or newer).
"""

import collections
import json
import os
import re
import sys
import tomllib

# Every lint, from LINTS.md (generated from the lints' own docs), so a new lint is counted too.
def _lints():
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "LINTS.md")) as f:
        return re.findall(r"^\| \[`(cuda_lint::\w+)`\]", f.read(), re.M)


LINTS = _lints()
# Column names of the summary; a lint not named here is shown by its own name.
SHORT_NAMES = {
    "cuda_lint::pageable_async_copy": "pageable",
    "cuda_lint::host_deref_device_ptr": "deref",
    "cuda_lint::missing_sync": "sync",
    "cuda_lint::unfenced_vmm_alias": "vmm",
    "cuda_lint::write_combined_host_read": "wc-read",
    "cuda_lint::vmm_lifecycle": "vmm-life",
    "cuda_lint::mismatched_free": "free",
    "cuda_lint::managed_concurrent_access": "managed",
}
SHORT = {l: SHORT_NAMES.get(l, l.split("::")[1]) for l in LINTS}
# Text that means cuda-lint (or rustc under it) broke, wherever it appears.
# (A build script's panic, `thread 'main' panicked`, is a build failure, not cuda-lint's.)
BROKEN = re.compile(
    r"internal compiler error|thread 'rustc'[^\n]*panicked|cuda-lint could not analyse|"
    r"query stack during panic|cuda-lint-driver[^\n]*(signal: \d+|SIGSEGV|SIGABRT)|"
    r"has overflowed its stack"
)
UNKNOWN = re.compile(r"^cuda-lint: no table entry for (\S+)\s*$")


def load(path):
    with open(path, "rb") as f:
        return tomllib.load(f)["crate"]


def plan(argv):
    path = argv[0]
    run_all = "--all" in argv
    only = None
    if "--only" in argv:
        only = set(argv[argv.index("--only") + 1].split(","))
    for c in load(path):
        if only is not None:
            if not {c["name"], f"{c['name']}@{c['version']}"} & only:
                continue
        elif c.get("status", "kept") != "kept" and not (run_all and c.get("status") == "dropped"):
            continue
        args = []
        if c.get("no_default_features"):
            args.append("--no-default-features")
        if c.get("features"):
            args += ["--features", ",".join(c["features"])]
        if c.get("all_targets"):
            args.append("--all-targets")
        env = " ".join(f"{k}={v}" for k, v in c.get("env", {}).items())
        update = " ".join(c.get("cargo_update", []))
        # \x1f, not a tab: bash's `read` merges consecutive tabs, losing empty fields.
        print("\x1f".join([c["name"], c["version"], " ".join(args), env, update]))


def read(path, default=""):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return default


def collect(argv):
    out, crates_toml = argv[0], argv[1]
    results = os.path.join(out, "results")
    findings = []
    crates = []
    unknown_total = collections.Counter()
    unknown_by_crate = {}
    for c in load(crates_toml):
        key = f"{c['name']}-{c['version']}"
        jpath = os.path.join(results, key + ".json")
        if not os.path.exists(jpath):
            continue
        src_dir = os.path.join(out, "sources", key)
        seen = {}
        broken = []
        errors = []
        success = None
        for line in read(jpath).splitlines():
            try:
                d = json.loads(line)
            except json.JSONDecodeError:
                continue
            if d.get("reason") == "build-finished":
                success = d.get("success")
                continue
            if d.get("reason") != "compiler-message":
                continue
            # Only the crate under check (its own targets), not a dependency's messages.
            pkg = d.get("package_id", "")
            if not pkg.startswith("path+"):
                continue
            m = d["message"]
            code = (m.get("code") or {}).get("code") or ""
            target = f"{'/'.join(d['target']['kind'])}:{d['target']['name']}"
            primary = next((s for s in m.get("spans", []) if s.get("is_primary")), None)
            where = None
            if primary:
                fname = primary["file_name"]
                if os.path.isabs(fname):
                    fname = os.path.relpath(fname, src_dir)
                where = (fname, primary["line_start"], primary["column_start"])
            if code.startswith("cuda_lint::"):
                # One finding per message and its labels: the same message for two arguments of
                # one call stays two findings; the copy that `--all-targets` emits again for the
                # library's test build is one.
                labels = tuple(
                    (sp["file_name"], sp["line_start"], sp["column_start"], sp.get("label"))
                    for sp in m.get("spans", []) if not sp.get("is_primary")
                )
                k = (code, where, m["message"], labels)
                if k in seen:
                    seen[k]["emitted"] += 1
                    if target not in seen[k]["targets"]:
                        seen[k]["targets"].append(target)
                    continue
                rec = {
                    "crate": c["name"],
                    "version": c["version"],
                    "lint": code,
                    "level": m["level"],
                    "file": where[0] if where else None,
                    "line": where[1] if where else None,
                    "column": where[2] if where else None,
                    "message": m["message"],
                    "targets": [target],
                    "emitted": 1,
                    "rendered": m.get("rendered", ""),
                }
                seen[k] = rec
                findings.append(rec)
            elif BROKEN.search(m.get("message", "")) or BROKEN.search(m.get("rendered", "") or ""):
                broken.append({"target": target, "where": where, "message": m["message"],
                               "rendered": m.get("rendered", "")})
            elif m["level"] in ("error", "error: internal compiler error"):
                errors.append({"target": target, "where": where, "message": m["message"]})
        stderr = read(os.path.join(results, key + ".stderr"))
        for line in stderr.splitlines():
            if BROKEN.search(line):
                broken.append({"target": None, "where": None, "message": line.strip(), "rendered": ""})
        unknown = collections.Counter()
        for line in read(os.path.join(results, key + ".unknown.stderr")).splitlines():
            mm = UNKNOWN.match(line)
            if mm:
                unknown[mm.group(1)] += 1
            elif BROKEN.search(line):
                broken.append({"target": "unknown-apis run", "where": None, "message": line.strip(),
                               "rendered": ""})
        unknown_total.update(unknown)
        unknown_by_crate[key] = dict(unknown.most_common())
        per_lint = collections.Counter(
            f["lint"] for f in findings if (f["crate"], f["version"]) == (c["name"], c["version"])
        )
        # Why a build failed, in cargo's words (its first error line).
        failure = next(
            (l.strip() for l in stderr.splitlines() if l.startswith("error") and "cuda_lint" not in l),
            None,
        )
        crates.append({
            "crate": c["name"],
            "version": c["version"],
            "status": c.get("status", "kept"),
            "features": c.get("features", []),
            "no_default_features": bool(c.get("no_default_features")),
            "all_targets": bool(c.get("all_targets")),
            "rc": read(os.path.join(results, key + ".rc")).strip(),
            "build_success": success,
            "build_errors": errors,
            "build_failure": failure if success is not True else None,
            "wall_s": read(os.path.join(results, key + ".time")).strip(),
            "cold_wall_s": read(os.path.join(results, key + ".unknown.time")).strip(),
            "findings": {SHORT[l]: per_lint.get(l, 0) for l in LINTS},
            "broken": broken,
            "unknown_api_paths": len(unknown),
        })
    findings.sort(key=lambda f: (f["crate"], f["file"] or "", f["line"] or 0, f["column"] or 0, f["lint"]))
    for i, f in enumerate(findings, 1):
        f["id"] = i
    with open(os.path.join(out, "findings.json"), "w") as f:
        json.dump({"crates": crates, "findings": findings}, f, indent=1)
    with open(os.path.join(out, "unknown_apis.json"), "w") as f:
        json.dump({"total": dict(unknown_total.most_common()), "by_crate": unknown_by_crate}, f, indent=1)

    lines = []
    columns = ["crate", "version", "build", "cold s", "lint s", *(SHORT[l] for l in LINTS), "broken", "unknown paths"]
    lines.append("| " + " | ".join(columns) + " |")
    lines.append("|" + "---|" * len(columns))
    for c in crates:
        build = {True: "ok", False: "FAILED", None: "no result"}[c["build_success"]]
        if c["build_errors"]:
            build += f" ({len(c['build_errors'])} errors)"
        if c["build_failure"]:
            build += f": {c['build_failure'][:90]}"
        fl = c["findings"]
        lines.append(
            f"| {c['crate']} | {c['version']} | {build} | {c['cold_wall_s'] or '-'} | {c['wall_s'] or '-'} | "
            + "".join(f"{fl[SHORT[l]]} | " for l in LINTS)
            + f"{len(c['broken'])} | "
            f"{c['unknown_api_paths']} |"
        )
    lines.append("")
    lines.append("| id | crate | file:line:col | lint | message |")
    lines.append("|---|---|---|---|---|")
    for f in findings:
        lines.append(f"| {f['id']} | {f['crate']} | {f['file']}:{f['line']}:{f['column']} | "
                     f"{SHORT[f['lint']]} | {f['message']} |")
    for c in crates:
        for b in c["broken"]:
            lines.append(f"BROKEN {c['crate']}: {b['target']} {b['where']} {b['message']}")
        for e in c["build_errors"]:
            lines.append(f"ERROR {c['crate']}: {e['target']} {e['where']} {e['message']}")
    lines.append("")
    lines.append("| calls | unknown API path (CUDA_LINT_UNKNOWN_APIS=1) |")
    lines.append("|---|---|")
    for path, n in unknown_total.most_common():
        lines.append(f"| {n} | `{path}` |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(text)
    print(text)


def report(argv):
    out, triage_toml = argv[0], argv[1]
    with open(os.path.join(out, "findings.json")) as f:
        data = json.load(f)
    with open(triage_toml, "rb") as f:
        triage = tomllib.load(f)
    cats = triage["category"]
    entries = {}
    for e in triage["finding"]:
        entries.setdefault((e["crate"], e["at"], e["lint"]), []).append(e)
    used = set()
    rows, untriaged = [], []
    counts = collections.Counter()
    for f in data["findings"]:
        short = f["lint"].split("::")[1]
        key = (f["crate"], f"{f['file']}:{f['line']}:{f['column']}", short)
        es = entries.get(key)
        if not es:
            untriaged.append(f)
            continue
        used.add(key)
        e = es[0]
        cat = e["category"]
        dup = cat.startswith("dup-harness-of:")
        base = cat.split(":", 1)[1] if dup else cat
        verdict = cats[base]["verdict"]
        counts[(f["crate"], short, verdict + (" (dup)" if dup else ""))] += 1
        if dup:
            reason = f"{e['note']}. Verdict as for those: [{base}]"
        else:
            reason = f"[{base}] {e['note']}. {cats[base]['reason']}"
        reason = reason.replace("|", "\\|").replace("\n", " ")
        where = f"{f['file']}:{f['line']}"
        rows.append(
            f"| {f['id']} | {f['crate']} | `{where}` | {short} | {verdict}{' (dup)' if dup else ''} | {reason} |"
        )
    print("| # | crate | file:line | lint | verdict | reason |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    print("| crate | lint | verdict | findings |")
    print("|---|---|---|---|")
    for (crate, lint, verdict), n in sorted(counts.items()):
        print(f"| {crate} | {lint} | {verdict} | {n} |")
    total = collections.Counter()
    for (_, _, verdict), n in counts.items():
        total[verdict] += n
    print()
    print("totals: " + ", ".join(f"{v}: {n}" for v, n in sorted(total.items())))
    stale = [k for k in entries if k not in used]
    for k in stale:
        print(f"STALE triage entry (no such finding now): {k}", file=sys.stderr)
    for f in untriaged:
        print(f"UNTRIAGED: {f['crate']} {f['file']}:{f['line']}:{f['column']} {f['lint']}: {f['message']}",
              file=sys.stderr)
    if untriaged:
        sys.exit(1)


if __name__ == "__main__":
    cmd, rest = sys.argv[1], sys.argv[2:]
    {"plan": plan, "collect": collect, "report": report}[cmd](rest)
