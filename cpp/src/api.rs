//! What the functions a C++ host program calls do to memory, as data. The CUDA runtime and
//! driver C functions and the C allocator are the shared table of `lint/c-api`, which the Rust
//! front end reads too; here are what only C++ calls (the standard algorithms), the functions
//! `cuda-lint.toml` describes, and the advice in C++'s words. The interpreter reads only this
//! vocabulary.

use cuda_lint_machine::{Advice, Dir};

/// The C functions' effects: the table both front ends read (`lint/c-api`).
pub use cuda_lint_c_api::{Arg, Effect, effects, memcpy_kind as copy_kind};

use Effect::*;

/// The functions `cuda-lint.toml` describes (`[[functions]]`), for C++: a path matches a call
/// when the segments written at the call (`vendor::wait_all`, `wait_all`, `q.finish` as
/// `finish`) and the path's segments end alike, the shorter being the tail of the longer.
/// Argument positions count the call's arguments from 0; in a method call the object is 0.
#[derive(Clone, Debug, Default)]
pub struct Functions {
    by_path: Vec<(Vec<String>, Vec<Effect>)>,
}

impl Functions {
    /// The functions of a configuration, and a note for each effect C++ calls cannot take
    /// (`launch(..)`: a launch is the `<<<>>>` syntax, read with the kernel's source).
    pub fn from_config(
        functions: &std::collections::BTreeMap<String, Vec<cuda_lint_protocol::summary::Summary>>,
    ) -> (Functions, Vec<String>) {
        use cuda_lint_protocol::summary::{CopyDir, Summary};
        let mut out = Functions::default();
        let mut skipped = Vec::new();
        for (path, summaries) in functions {
            let mut effects = Vec::new();
            for summary in summaries {
                effects.push(match summary {
                    Summary::SyncStream(a) => SyncStream(*a as Arg),
                    Summary::SyncAll => SyncDevice,
                    Summary::Copy { dst, src, stream, dir } => Copy {
                        dst: *dst as Arg,
                        src: *src as Arg,
                        kind: None,
                        dir: match dir {
                            CopyDir::Infer => Dir::Unknown,
                            CopyDir::HostToDevice => Dir::HostToDevice,
                            CopyDir::DeviceToHost => Dir::DeviceToHost,
                            CopyDir::DeviceToDevice => Dir::DeviceToDevice,
                        },
                        stream: Some(*stream as Arg),
                    },
                    Summary::Returns(kind) => Returns { kind: *kind },
                    Summary::Launch { .. } => {
                        skipped.push(format!(
                            "cuda-lint.toml: `{summary}` of `{path}` is not applied to C++ calls (a C++ launch is read from its `<<<>>>` and the kernel's source)"
                        ));
                        continue;
                    }
                });
            }
            let segments = path.split("::").map(|s| s.trim().to_string()).collect();
            out.by_path.push((segments, effects));
        }
        (out, skipped)
    }

    /// The effects of the function written `written` at a call (`a::b::f`, `f`), if described.
    pub fn lookup(&self, written: &str) -> Option<&[Effect]> {
        let written: Vec<&str> = written.split("::").map(str::trim).collect();
        self.by_path
            .iter()
            .find(|(path, _)| {
                let n = path.len().min(written.len());
                n > 0
                    && path[path.len() - n..]
                        .iter()
                        .zip(&written[written.len() - n..])
                        .all(|(a, b)| a == b)
            })
            .map(|(_, e)| e.as_slice())
    }
}

/// The algorithms of the C++ standard library that read or write host memory through the
/// iterators (or pointers) they are given, called as `std::NAME`: `std::fill(v.begin(), ..)`
/// writes `v`'s memory, `std::accumulate(v.begin(), ..)` reads it.
pub fn std_algorithm(name: &str) -> Option<&'static [Effect]> {
    let e: &'static [Effect] = match name {
        "fill" | "fill_n" | "generate" | "generate_n" | "iota" | "uninitialized_fill" | "uninitialized_fill_n" => {
            &[HostAccess { mem: 0, write: true }]
        }
        "accumulate"
        | "reduce"
        | "count"
        | "count_if"
        | "find"
        | "find_if"
        | "find_if_not"
        | "max_element"
        | "min_element"
        | "minmax_element"
        | "all_of"
        | "any_of"
        | "none_of"
        | "for_each"
        | "equal"
        | "inner_product"
        | "transform_reduce"
        | "is_sorted"
        | "lexicographical_compare"
        | "mismatch" => &[HostAccess { mem: 0, write: false }],
        "copy" | "copy_n" | "copy_if" | "move" | "transform" | "uninitialized_copy" | "uninitialized_copy_n" => {
            &[HostAccess { mem: 0, write: false }, HostAccess { mem: 2, write: true }]
        }
        "sort" | "stable_sort" | "partial_sort" | "nth_element" | "reverse" | "shuffle" | "rotate" | "unique" => {
            &[HostAccess { mem: 0, write: false }, HostAccess { mem: 0, write: true }]
        }
        _ => return None,
    };
    Some(e)
}

/// How CUDA C++ programs fix what the lints find.
pub static ADVICE: Advice = Advice {
    pinned: "allocate the host buffer with `cudaMallocHost` (or `cudaHostAlloc`), or page-lock it in \
             place with `cudaHostRegister`",
    pinned_readback: "read back into pinned memory that is not write-combined: `cudaMallocHost`, or \
                      `cudaHostAlloc` without `cudaHostAllocWriteCombined`",
    sync_stream: "`cudaStreamSynchronize({stream})`",
    order_streams: "record an event after the first work (`cudaEventRecord`) and make the other stream \
                    wait for it (`cudaStreamWaitEvent`)",
    copy_to_host: "copy it to host memory first (`cudaMemcpy(..., cudaMemcpyDeviceToHost)`)",
    copy_to_device: "copy host data to it with `cudaMemcpy(..., cudaMemcpyHostToDevice)`",
    sync_statement: None,
    error_type: "",
};
