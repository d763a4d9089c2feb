#!/usr/bin/env python3
"""Generates a Rust crate for the lint speed benchmark.

`gen_crate.py DIR --lines 100000 --cuda-percent 3`: a library of about LINES lines in modules of
ordinary host code (parsing, statistics, string handling, collections, traits, loops), where
about CUDA_PERCENT percent of the functions use cudarc 0.19's safe API the way application
code does (upload, launch, download, synchronize, double buffering, structs holding buffers).
The code compiles warning-free; it is only checked, never run.

`gen_crate.py DIR --scaling 250,500,1000,2000,4000`: one module per size N, with one function
of N CUDA statement groups (straight-line and in loops), to measure how the analysis of one
body grows with its size.
"""

import argparse
import os
import random

CARGO_TOML = """[package]
name = "{name}"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
cudarc = {{ version = "=0.19.10", default-features = false, features = ["std", "driver", "nvrtc", "dynamic-loading", "cuda-13000"] }}

[workspace]
"""

PRELUDE = """#![allow(clippy::all, dead_code, unused)]
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
"""

# Ordinary host code: each template is one function; {i} makes names unique.
HOST_FUNCTIONS = [
    """
pub fn parse_record_{i}(line: &str) -> Option<(String, f64, u32)> {{
    let mut parts = line.split(',');
    let name = parts.next()?.trim().to_string();
    let value: f64 = parts.next()?.trim().parse().ok()?;
    let count: u32 = parts.next()?.trim().parse().ok()?;
    if name.is_empty() || value.is_nan() {{
        return None;
    }}
    Some((name, value * {i} as f64 / 1000.0, count + {i} % 7))
}}
""",
    """
pub fn running_stats_{i}(values: &[f64]) -> (f64, f64, f64) {{
    let mut mean = 0.0;
    let mut m2 = 0.0;
    let mut max = f64::MIN;
    for (k, v) in values.iter().enumerate() {{
        let delta = v - mean;
        mean += delta / (k + 1) as f64;
        m2 += delta * (v - mean);
        if *v > max {{
            max = *v;
        }}
    }}
    let variance = if values.len() > 1 {{ m2 / (values.len() - 1) as f64 }} else {{ 0.0 }};
    (mean, variance.sqrt(), max + {i} as f64 * 0.0)
}}
""",
    """
pub fn word_histogram_{i}(text: &str) -> BTreeMap<String, usize> {{
    let mut counts = BTreeMap::new();
    for word in text.split_whitespace() {{
        let word = word.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
        if word.len() > {i} % 3 {{
            *counts.entry(word).or_insert(0) += 1;
        }}
    }}
    counts
}}
""",
    """
#[derive(Debug, Clone, PartialEq)]
pub struct Point{i} {{
    pub x: f64,
    pub y: f64,
    pub label: String,
}}

impl Point{i} {{
    pub fn new(x: f64, y: f64, label: &str) -> Self {{
        Point{i} {{ x, y, label: label.to_string() }}
    }}

    pub fn distance(&self, other: &Point{i}) -> f64 {{
        ((self.x - other.x).powi(2) + (self.y - other.y).powi(2)).sqrt()
    }}

    pub fn nearest<'a>(&self, others: &'a [Point{i}]) -> Option<&'a Point{i}> {{
        others
            .iter()
            .filter(|p| p.label != self.label)
            .min_by(|a, b| self.distance(a).partial_cmp(&self.distance(b)).unwrap())
    }}
}}
""",
    """
pub trait Shape{i} {{
    fn area(&self) -> f64;
    fn name(&self) -> String {{
        format!("shape{i}")
    }}
}}

pub struct Rect{i}(pub f64, pub f64);

impl Shape{i} for Rect{i} {{
    fn area(&self) -> f64 {{
        self.0 * self.1
    }}
}}

pub fn total_area_{i}(shapes: &[Box<dyn Shape{i}>]) -> f64 {{
    shapes.iter().map(|s| s.area()).sum()
}}
""",
    """
pub fn dedup_sorted_{i}(mut items: Vec<u64>) -> Vec<u64> {{
    items.sort_unstable();
    let mut seen = HashSet::new();
    items.retain(|x| seen.insert(*x));
    let mut out = Vec::with_capacity(items.len());
    for (k, x) in items.into_iter().enumerate() {{
        if k % 2 == 0 || x % {m} == 0 {{
            out.push(x);
        }} else {{
            out.push(x.wrapping_mul(31).rotate_left(3));
        }}
    }}
    out
}}
""",
    """
pub fn group_by_len_{i}(words: &[&str]) -> HashMap<usize, Vec<String>> {{
    let mut groups: HashMap<usize, Vec<String>> = HashMap::new();
    for w in words {{
        groups.entry(w.len()).or_default().push(w.to_uppercase());
    }}
    for list in groups.values_mut() {{
        list.sort();
        list.dedup();
    }}
    groups
}}
""",
    """
pub fn matrix_mul_{i}(a: &[f32], b: &[f32], n: usize) -> Vec<f32> {{
    let mut c = vec![0.0f32; n * n];
    for row in 0..n {{
        for k in 0..n {{
            let aik = a[row * n + k];
            for col in 0..n {{
                c[row * n + col] += aik * b[k * n + col];
            }}
        }}
    }}
    c
}}
""",
]

# CUDA host code, as applications write it (single upload/launch/download, double buffering,
# a struct holding buffers, a helper that synchronizes).
CUDA_FUNCTIONS = [
    """
pub fn scale_on_gpu_{i}(ctx: &Arc<CudaContext>, f: &CudaFunction, input: &PinnedHostSlice<f32>, out: &mut PinnedHostSlice<f32>) -> Result<(), DriverError> {{
    let stream = ctx.default_stream();
    let mut dev = stream.clone_htod(input)?;
    let n = input.len() as u32;
    let mut launch = stream.launch_builder(f);
    launch.arg(&mut dev).arg(&n);
    unsafe {{ launch.launch(LaunchConfig::for_num_elems(n))? }};
    stream.memcpy_dtoh(&dev, out)?;
    stream.synchronize()?;
    Ok(())
}}
""",
    """
pub struct Pipeline{i} {{
    stream: Arc<CudaStream>,
    front: CudaSlice<f32>,
    back: CudaSlice<f32>,
    staging: PinnedHostSlice<f32>,
}}

impl Pipeline{i} {{
    pub fn new(ctx: &Arc<CudaContext>, n: usize) -> Result<Self, DriverError> {{
        let stream = ctx.new_stream()?;
        let front = stream.alloc_zeros::<f32>(n)?;
        let back = stream.alloc_zeros::<f32>(n)?;
        let staging = unsafe {{ ctx.alloc_pinned::<f32>(n)? }};
        Ok(Pipeline{i} {{ stream, front, back, staging }})
    }}

    pub fn step(&mut self, f: &CudaFunction, rounds: usize) -> Result<f32, DriverError> {{
        let n = self.front.len() as u32;
        let mut total = 0.0;
        for _ in 0..rounds {{
            let mut launch = self.stream.launch_builder(f);
            launch.arg(&self.front).arg(&mut self.back).arg(&n);
            unsafe {{ launch.launch(LaunchConfig::for_num_elems(n))? }};
            std::mem::swap(&mut self.front, &mut self.back);
            self.stream.memcpy_dtoh(&self.front, &mut self.staging)?;
            self.stream.synchronize()?;
            total += self.staging.as_slice()?[0];
        }}
        Ok(total)
    }}
}}
""",
    """
fn wait_{i}(stream: &Arc<CudaStream>) -> Result<(), DriverError> {{
    stream.synchronize()
}}

pub fn two_streams_{i}(ctx: &Arc<CudaContext>, host: &PinnedHostSlice<f32>) -> Result<Vec<f32>, DriverError> {{
    let upload = ctx.new_stream()?;
    let compute = ctx.new_stream()?;
    let mut dev = upload.alloc_zeros::<f32>(host.len())?;
    upload.memcpy_htod(host, &mut dev)?;
    compute.join(&upload)?;
    let mut out = compute.alloc_zeros::<f32>(host.len())?;
    compute.memcpy_dtod(&dev, &mut out)?;
    wait_{i}(&compute)?;
    let mut result = unsafe {{ ctx.alloc_pinned::<f32>(host.len())? }};
    compute.memcpy_dtoh(&out, &mut result)?;
    wait_{i}(&compute)?;
    Ok(result.as_slice()?.to_vec())
}}
""",
]

SCALING_GROUP = """
    let mut dev_{k} = stream.alloc_zeros::<f32>(n)?;
    stream.memcpy_htod(&staging, &mut dev_{k})?;
    if flags[{k} % flags.len()] {{
        stream.memcpy_dtod(&dev_{k}, &mut acc)?;
    }}
    for _ in 0..2 {{
        let mut launch = stream.launch_builder(f);
        launch.arg(&mut dev_{k}).arg(&acc);
        unsafe {{ launch.launch(LaunchConfig::for_num_elems(n as u32))? }};
    }}
    stream.memcpy_dtoh(&dev_{k}, &mut out)?;
    stream.synchronize()?;
    total += out.as_slice()?[0];
"""


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def generate(out, lines, cuda_percent, seed):
    rng = random.Random(seed)
    write(os.path.join(out, "Cargo.toml"), CARGO_TOML.format(name="lint-speed-generated"))
    modules = []
    total_lines = 0
    funcs = cuda_funcs = 0
    m = 0
    while total_lines < lines:
        body = [PRELUDE.replace("#![allow(clippy::all, dead_code, unused)]\n", "")]
        mod_lines = 0
        while mod_lines < 2000 and total_lines + mod_lines < lines:
            i = funcs
            if rng.random() * 100 < cuda_percent:
                text = rng.choice(CUDA_FUNCTIONS).format(i=i)
                cuda_funcs += 1
            else:
                text = rng.choice(HOST_FUNCTIONS).format(i=i, m=(i % 13) + 2)
            body.append(text)
            mod_lines += text.count("\n")
            funcs += 1
        name = f"m{m:03}"
        write(os.path.join(out, "src", f"{name}.rs"), "".join(body))
        modules.append(name)
        total_lines += mod_lines
        m += 1
    lib = "#![allow(clippy::all, dead_code, unused)]\n" + "".join(f"pub mod {n};\n" for n in modules)
    write(os.path.join(out, "src", "lib.rs"), lib)
    return total_lines, funcs, cuda_funcs, len(modules)


def generate_scaling(out, sizes):
    write(os.path.join(out, "Cargo.toml"), CARGO_TOML.format(name="lint-speed-scaling"))
    mods = []
    for size in sizes:
        groups = "".join(SCALING_GROUP.format(k=k) for k in range(size))
        text = PRELUDE + f"""
pub fn body_of_{size}_groups(ctx: &Arc<CudaContext>, f: &CudaFunction, flags: &[bool], n: usize) -> Result<f32, DriverError> {{
    let stream = ctx.default_stream();
    let staging = unsafe {{ ctx.alloc_pinned::<f32>(n)? }};
    let mut out = unsafe {{ ctx.alloc_pinned::<f32>(n)? }};
    let mut acc = stream.alloc_zeros::<f32>(n)?;
    let mut total = 0.0;
{groups}
    Ok(total)
}}
"""
        name = f"size_{size}"
        write(os.path.join(out, "src", f"{name}.rs"), text)
        mods.append(name)
    write(os.path.join(out, "src", "lib.rs"), "#![allow(clippy::all, dead_code, unused)]\n" + "".join(f"pub mod {n};\n" for n in mods))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--cuda-percent", type=float, default=3.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scaling", help="comma-separated body sizes (statement groups)")
    args = ap.parse_args()
    if args.scaling:
        generate_scaling(args.out, [int(s) for s in args.scaling.split(",")])
        print(f"scaling crate in {args.out}: sizes {args.scaling}")
    else:
        lines, funcs, cuda, mods = generate(args.out, args.lines, args.cuda_percent, args.seed)
        print(f"generated {lines} lines, {funcs} functions ({cuda} using CUDA, {100 * cuda / funcs:.1f}%), {mods} modules in {args.out}")


if __name__ == "__main__":
    main()
