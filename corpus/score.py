#!/usr/bin/env python3
"""Scores cuda-lint over a corpus (format: corpus/README.md).

Usage: score.py CORPUS_DIR [--cargo-cuda-lint PATH] [--cuda-lint PATH] [--json OUT] [--details]
                [--warn LINT ...]

A Rust corpus (a crate: `rust-X/`, cases under `src/partN/`): runs `cargo cuda-lint
--message-format=json` over it. A CUDA C++ corpus (no Cargo.toml: `cpp-X/`, cases under
`partN/`): runs `cuda-lint check --message-format=json` over it. Every lint at its default
level; the findings are compared with the `// EXPECT: lint` labels, per case and lint (`--warn LINT` turns an allow-by-default lint on, for C++ corpora:
`--warn unchecked_cuda_result`):
TP = min(expected, found), FP = found - TP, FN = expected - TP. Prints recall and precision
per lint, for the deny-level lints, and overall.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

DENY = {"host_deref_device_ptr", "missing_sync", "unfenced_vmm_alias", "vmm_lifecycle", "mismatched_free", "memcpy_kind_mismatch", "copy_out_of_bounds", "unallocated_pointer", "graph_uses_freed_memory", "uncapturable_call"}
# `// EXPECT: lint` or, in C-style code, `/* EXPECT: lint */`.
LABEL = re.compile(r"(?://|/\*)\s*EXPECT:\s*([a-z_,\s]+)")


CPP_EXTENSIONS = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp")


def case_of(path: Path, src: Path):
    """The case a file belongs to: the first component under src/partN/ (partN/ for C++)."""
    try:
        rel = path.resolve().relative_to(src.resolve())
    except ValueError:
        return None
    parts = rel.parts
    if len(parts) < 2 or not parts[0].startswith("part") or parts[1] == "mod.rs":
        return None
    name = parts[1]
    if len(parts) == 2:
        name = Path(name).stem
    return f"{parts[0]}/{name}"


def sources(src: Path):
    """The corpus's source files: Rust, or CUDA C++."""
    if (src.parent / "Cargo.toml").exists() and src.name == "src":
        return sorted(src.rglob("*.rs"))
    return sorted(f for f in src.rglob("*") if f.suffix in CPP_EXTENSIONS)


# A case's header, when it labels counts instead of lines: `// expect: missing_sync=2, mismatched_free=1`
# or `// expect: none` in its first lines.
HEADER = re.compile(r"^\s*//\s*expect:\s*(.*)$")


def labels(src: Path):
    """{case: {lint: set((file, line))}}: labelled lines, or, for a case that labels no line, the
    counts of its `// expect:` header (as that many placeholder entries)."""
    out = defaultdict(lambda: defaultdict(set))
    headers = {}
    for f in sources(src):
        case = case_of(f, src)
        if case is None:
            continue
        for i, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
            m = LABEL.search(line)
            if m:
                for name in m.group(1).replace(" ", "").split(","):
                    if name:
                        out[case][name.removeprefix("cuda_lint::")].add((str(f.resolve()), i))
            h = HEADER.match(line) if i <= 5 else None
            if h:
                counts = {}
                for part in h.group(1).split(","):
                    if "=" in part:
                        name, n = part.split("=", 1)
                        counts[name.strip().removeprefix("cuda_lint::")] = int(n.strip())
                headers[case] = counts
    for case, counts in headers.items():
        if case in out:
            continue
        for lint, n in counts.items():
            for k in range(n):
                out[case][lint].add(("header", -k - 1))
    return out


def run_lint(crate: Path, tool: str):
    # Cargo keeps a fresh crate's last messages: touching the crate makes the driver (maybe a
    # newer binary than the one that ran last) lint it again.
    os.utime(crate / "src" / "lib.rs")
    cmd = [tool, "cuda-lint", "--manifest-path", str(crate / "Cargo.toml"), "--message-format=json",
           "--quiet"]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=crate)
    findings, notes = [], []
    for line in p.stdout.splitlines():
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            continue
        if msg.get("reason") != "compiler-message":
            continue
        m = msg["message"]
        code = (m.get("code") or {}).get("code") or ""
        if "could not analyse" in m.get("message", ""):
            notes.append(m["rendered"])
        if not code.startswith("cuda_lint::"):
            if m.get("level") == "error":
                notes.append(m.get("rendered", ""))
            continue
        prim = next((s for s in m["spans"] if s["is_primary"]), None)
        if prim is None:
            continue
        path = Path(prim["file_name"])
        if not path.is_absolute():
            path = crate / path
        findings.append((code.removeprefix("cuda_lint::"), str(path.resolve()), prim["line_start"], m["message"]))
    return findings, notes, p


def run_cpp(corpus: Path, tool: str, warn=()):
    """`cuda-lint check --message-format=json` over a C++ corpus, with `-W` for each of `warn`."""
    flags = [f for w in warn for f in ("-W", "cuda_lint::" + w.removeprefix("cuda_lint::"))]
    p = subprocess.run([tool, "check", "--message-format=json", *flags, str(corpus)], capture_output=True,
                       text=True, cwd=corpus)
    findings, notes = [], []
    for line in p.stdout.splitlines():
        try:
            f = json.loads(line)
        except json.JSONDecodeError:
            continue
        code = f.get("lint") or ""
        if not code.startswith("cuda_lint::"):
            continue
        path = Path(f["path"])
        if not path.is_absolute():
            path = corpus / path
        findings.append((code.removeprefix("cuda_lint::"), str(path.resolve()), f["line"], f["message"]))
    for line in p.stderr.splitlines():
        if line.startswith("error") or "not analysed" in line or "could not" in line:
            notes.append(line)
    return findings, notes, p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("--cargo-cuda-lint", default=shutil.which("cargo-cuda-lint") or "cargo-cuda-lint")
    ap.add_argument("--cuda-lint", default=shutil.which("cuda-lint") or "cuda-lint")
    ap.add_argument("--json")
    ap.add_argument("--details", action="store_true")
    ap.add_argument("--warn", action="append", default=[])
    a = ap.parse_args()
    crate = Path(a.corpus).resolve()
    tool = str(Path(a.cargo_cuda_lint).resolve()) if "/" in a.cargo_cuda_lint else a.cargo_cuda_lint
    cpp = not (crate / "Cargo.toml").exists()
    src = crate if cpp else crate / "src"
    expected = labels(src)
    if cpp:
        cuda_lint = str(Path(a.cuda_lint).resolve()) if "/" in a.cuda_lint else a.cuda_lint
        findings, notes, proc = run_cpp(crate, cuda_lint, a.warn)
    else:
        findings, notes, proc = run_lint(crate, tool)
    found = defaultdict(lambda: defaultdict(set))
    outside = []
    for lint, path, line, msg in findings:
        case = case_of(Path(path), src)
        if case is None:
            outside.append((lint, path, line, msg))
            continue
        found[case][lint].add((path, line))
    cases = sorted(set(expected) | set(found) | {case_of(f, src) for f in sources(src)} - {None})
    per = defaultdict(lambda: [0, 0, 0])  # lint -> tp, fp, fn
    on_line = [0, 0]
    rows = []
    for case in cases:
        for lint in sorted(set(expected[case]) | set(found[case])):
            e, f = expected[case][lint], found[case][lint]
            tp = min(len(e), len(f))
            fp, fn = len(f) - tp, len(e) - tp
            per[lint][0] += tp
            per[lint][1] += fp
            per[lint][2] += fn
            on_line[0] += len(e & f)
            on_line[1] += len(e)
            if fp or fn:
                rows.append((case, lint, fp, fn, sorted(l for _, l in e), sorted(l for _, l in f)))
    def ratio(n, d):
        return n / d if d else 1.0
    print(f"{'lint':32} {'TP':>4} {'FP':>4} {'FN':>4} {'recall':>7} {'precision':>9}")
    tot = [0, 0, 0]
    deny = [0, 0, 0]
    for lint in sorted(per):
        tp, fp, fn = per[lint]
        print(f"{lint:32} {tp:4} {fp:4} {fn:4} {ratio(tp, tp + fn):7.2f} {ratio(tp, tp + fp):9.2f}")
        for i, v in enumerate(per[lint]):
            tot[i] += v
            if lint in DENY:
                deny[i] += v
    for name, t in (("deny-level lints", deny), ("all", tot)):
        tp, fp, fn = t
        print(f"{name:32} {tp:4} {fp:4} {fn:4} {ratio(tp, tp + fn):7.2f} {ratio(tp, tp + fp):9.2f}")
    print(f"cases: {len(cases)}; labelled lines found on their own line: {on_line[0]}/{on_line[1]}")
    if outside:
        print(f"{len(outside)} findings outside any case")
    if notes:
        print(f"{len(notes)} errors or 'could not analyse' notes:")
        for n in notes[:10]:
            print("  " + n.strip().splitlines()[0])
    if proc.returncode not in ((0, 1) if cpp else (0, 101)):
        print(f"{'cuda-lint check' if cpp else 'cargo cuda-lint'} exited with {proc.returncode}:\n{proc.stderr[-3000:]}")
    if a.details:
        print("\nmismatches (case, lint, FP, FN, expected lines, found lines):")
        for r in rows:
            print("  ", *r)
    if a.json:
        Path(a.json).write_text(json.dumps({
            "per_lint": {k: dict(zip(("tp", "fp", "fn"), v)) for k, v in per.items()},
            "mismatches": rows,
            "findings": findings,
        }, indent=1))


if __name__ == "__main__":
    sys.exit(main())
