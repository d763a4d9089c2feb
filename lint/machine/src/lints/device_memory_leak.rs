//! `cuda_lint::device_memory_leak`: fires when the last pointer to an allocation is lost
//! before it was released.

use super::{Cx, named};
use crate::diagnostic::{Diagnostic, Finding};
use crate::events::Event;
use crate::state::Ext;

declare_lint! {
    /// ### What it does
    /// Checks for allocations (`cudaMalloc`, `cudaMallocHost`, `cudaHostAlloc`,
    /// `cudaMallocManaged`, `cudaMallocAsync`, `cudaMallocPitch`, `cuMemAlloc`,
    /// `cuMemAllocHost`, `cuMemCreate`) never released on some path: a function returns
    /// (early error returns included) while only its locals held the memory, an allocation in
    /// a loop's body is made again over the only pointer to the last round's, or `main`
    /// returns while the memory was never freed (not after a failed call: the process ends). Memory returned, stored in an object or a
    /// global the program goes on using, or handed to code the analysis cannot see, is
    /// not lost.
    ///
    /// ### Why is this bad?
    /// Device memory is not reclaimed until the process ends: a leak in a function called
    /// per frame, per request or per batch runs the device out of memory
    /// (`cudaErrorMemoryAllocation`) after hours. It is the largest class of host-side CUDA
    /// bugs in the one published census (Wu et al., 13 of 102); DRACC 014 leaves one
    /// `cudaFree` out. compute-sanitizer's `--leak-check full` finds it only when it runs.
    ///
    /// `main` leaving with a failure (`return 1;`, a status macro's return after a failed call,
    /// the branch where an allocation gave nothing) is not reported: the process ends there,
    /// and its device memory with it.
    ///
    /// ### Known problems
    /// A leak that holds only on some paths is reported where the allocation is lost on
    /// every path reaching one return. Memory released by code the analysis cannot see (a
    /// callback, a library's pool) is taken as handed over at the call, not reported. In Rust,
    /// memory an `Option` or a `Result` carries (a helper's `Ok(ptr)`) is taken as held: the
    /// call may have returned the variant that holds nothing; and memory owned by one of the
    /// crate's types with a `Drop` impl is taken as released by it.
    ///
    /// ### Example
    /// ```rust,ignore
    /// // C++: the early return leaks d_tmp.
    /// cudaMalloc(&d_tmp, bytes);
    /// if (cudaMemcpy(d_tmp, h, bytes, cudaMemcpyHostToDevice) != cudaSuccess) return -1;
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// cudaMalloc(&d_tmp, bytes);
    /// if (cudaMemcpy(d_tmp, h, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
    ///     cudaFree(d_tmp);
    ///     return -1;
    /// }
    /// ```
    pub DEVICE_MEMORY_LEAK = "device_memory_leak", Warn, Correctness, "an allocation whose last pointer is lost before it was released"
}

pub fn check<S: Copy + PartialEq, X: Ext>(event: &Event<'_, S>, cx: &Cx<'_, S, X>, out: &mut Vec<Finding<S>>) {
    let (lost, program_end, again) = match *event {
        Event::ScopeExit { lost, program_end } => (lost, program_end, false),
        Event::Reallocated { lost } => (lost, false, true),
        _ => return,
    };
    let unreleased = cx.state.unreleased();
    for root in lost.iter() {
        if !unreleased.contains(root) || cx.regions.root(root) != root {
            continue;
        }
        let target = cx.describe.region(root);
        let name = named(&target.name, "this memory");
        let mut diag = Diagnostic::new(format!(
            "{name} ({}) is never released",
            target.kind.describe()
        ));
        let at = if again {
            "a new allocation is stored over the only pointer to it here (in a loop: the next round's)"
        } else if program_end {
            "`main` returns here without releasing it"
        } else {
            "the function returns here and nothing holds it any more"
        };
        if !again {
            diag.label(cx.span, at.to_string());
        } else {
            diag.note(at);
        }
        let release = cx
            .regions
            .allocator(root)
            .map(|a| format!(" with {}", a.released_by()))
            .unwrap_or_default();
        diag.via("the memory is lost")
            .note("device and pinned memory are not reclaimed until the process ends: a leak in code that runs again runs the device out of memory")
            .help(format!("release {name}{release} on this path, or hand it to an owner that does"));
        let mut f = cx.finding(&DEVICE_MEMORY_LEAK, "device_memory_leak", false, diag);
        f.span = target.origin;
        out.push(f);
    }
}
