#!/usr/bin/env python3
"""Compares the output of the C++ reference (runtime/bench/reference.cu) with the output of the
Rust benchmark (runtime/benches/copy_bench.rs), metric by metric.

Usage: compare.py CPP_OUTPUT RUST_OUTPUT
       compare.py --rounds CPP_1 RUST_1 [CPP_2 RUST_2 ...]

Each input is the program's stdout: `key value` lines (lines starting with `#` are comments).
With --rounds, the outputs of interleaved runs (C++, Rust, C++, Rust, ...) are given in pairs and
each side's figure is the median over its rounds, with the min-max spread shown.
For each metric the table shows both figures and a ratio oriented so that
  ratio > 1 means Rust is slower:
    times (keys ending in _us):        ratio = Rust / C++
    bandwidths (keys ending in _gbps): ratio = C++ / Rust
and whether Rust meets the goal: at most 2% slower than C++ (ratio <= 1.02; faster is fine).
Exits 0 when the comparison could be made (whatever the figures), 2 when an input is missing,
says SKIP or lacks a metric.
"""

import statistics
import sys

METRICS = ["launch_host_us", "launch_e2e_us", "h2d_pinned_gbps", "d2h_pinned_gbps"]
TOLERANCE = 0.02


def parse(path):
    values, notes = {}, []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            if line.startswith("#"):
                notes.append(line)
                continue
            parts = line.split()
            if len(parts) == 2:
                try:
                    values[parts[0]] = float(parts[1])
                    continue
                except ValueError:
                    pass
            notes.append(line)
    return values, notes


def ratio(metric, cpp, rust):
    if metric.endswith("_us"):
        return rust / cpp if cpp > 0 else float("inf")
    return cpp / rust if rust > 0 else float("inf")


def median_of(paths):
    """The median of each metric over several outputs, and each metric's (min, max)."""
    runs = [parse(p) for p in paths]
    values, spread = {}, {}
    for m in METRICS:
        xs = [v[m] for v, _ in runs if m in v]
        if len(xs) == len(runs):
            values[m] = statistics.median(xs)
            spread[m] = (min(xs), max(xs))
    notes = runs[0][1] + [f"median of {len(runs)} rounds"]
    return values, notes, spread


def main(argv):
    spread_c, spread_r = {}, {}
    try:
        if len(argv) >= 4 and argv[1] == "--rounds" and len(argv) % 2 == 0:
            cpp, cpp_notes, spread_c = median_of(argv[2::2])
            rust, rust_notes, spread_r = median_of(argv[3::2])
        elif len(argv) == 3:
            cpp, cpp_notes = parse(argv[1])
            rust, rust_notes = parse(argv[2])
        else:
            print(__doc__.strip())
            return 2
    except OSError as e:
        print(f"compare: cannot read input: {e}")
        return 2
    for label, notes in (("C++", cpp_notes), ("Rust", rust_notes)):
        for n in notes:
            print(f"{label:>4}: {n}")
    missing = [m for m in METRICS if m not in cpp or m not in rust]
    header = f"{'metric':<18} {'C++':>10} {'Rust':>10} {'ratio':>8}  goal (<= 1.02)"
    print(header)
    print("-" * len(header))
    within = 0
    for m in METRICS:
        c, r = cpp.get(m), rust.get(m)
        if c is None or r is None:
            cs = f"{c:.3f}" if c is not None else "-"
            rs = f"{r:.3f}" if r is not None else "-"
            print(f"{m:<18} {cs:>10} {rs:>10} {'-':>8}  -")
            continue
        q = ratio(m, c, r)
        ok = q <= 1.0 + TOLERANCE
        within += ok
        extra = ""
        if m in spread_c and m in spread_r:
            extra = (f"   C++ {spread_c[m][0]:.3f}-{spread_c[m][1]:.3f},"
                     f" Rust {spread_r[m][0]:.3f}-{spread_r[m][1]:.3f}")
        print(f"{m:<18} {c:>10.3f} {r:>10.3f} {q:>8.3f}  {'yes' if ok else 'NO'}{extra}")
    print("ratio = Rust/C++ for times (_us), C++/Rust for bandwidths (_gbps): "
          "ratio > 1 means Rust is slower")
    print(f"{within} of {len(METRICS)} metrics meet the goal")
    if missing:
        print(f"compare: missing in one of the outputs: {', '.join(missing)}")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
