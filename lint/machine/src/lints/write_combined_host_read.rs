//! `cuda_lint::write_combined_host_read`: fires when the host reads write-combined pinned memory
//! (`CU_MEMHOSTALLOC_WRITECOMBINED`), which it does not cache.

use super::{Cx, named, origin_label, paths_suffix};
use crate::diagnostic::{Diagnostic, Finding};
use crate::events::{Event, Origin};
use crate::memory::Access;
use crate::regions::Loc;
use crate::state::Ext;

declare_lint! {
    /// ### What it does
    /// Checks for host reads of write-combined pinned memory: memory from `cuMemHostAlloc` or
    /// `cudaHostAlloc` with the write-combined flag (`CU_MEMHOSTALLOC_WRITECOMBINED`,
    /// `cudaHostAllocWriteCombined`), the runtime layer's `alloc_pinned_with_flags` with
    /// `write_combined: true`, and cudarc's `CudaContext::alloc_pinned`, which in cudarc 0.19.10
    /// always passes `CU_MEMHOSTALLOC_WRITECOMBINED`. The typical case is reading the destination
    /// of a device-to-host copy. It is reported once per allocation in a function, at the first
    /// read.
    ///
    /// ### Why is this bad?
    /// Write-combined memory is not cached by the CPU: writes are combined into bus bursts (fast
    /// host-to-device staging), but every read goes over the bus, uncached. The CUDA Programming
    /// Guide: "reading from write-combining memory from the host is prohibitively slow". cudarc
    /// issue #580 measured the same host reads of a readback at 1.287 s from `alloc_pinned`
    /// memory against 18.8 ms from memory allocated without the flag. Nothing fails: the program
    /// is just slower, so this lint warns. (On this project's GPU machines, KVM guests with an H100
    /// and an H200, the flag made no measurable difference: a guest's memory type for ordinary RAM
    /// is normally the host's, write-back. `runtime/gpu-results/2026-11-25-write-combined.md`.)
    ///
    /// Writing write-combined memory (to upload it) is what it is for, and is not reported; nor
    /// is pinned memory allocated without the flag (`cuMemAllocHost`, `cudaMallocHost`, cudarc's
    /// `alloc_pinned_with_flags(len, 0)`, the runtime layer's `alloc_pinned`).
    ///
    /// ### Known problems
    /// Flags that are not a constant where the memory is allocated (a parameter, a value
    /// computed at run time) are taken as not write-combined. A read by code the analysis cannot
    /// see (a C function given the pointer) is not reported.
    ///
    /// ### Example
    /// ```rust,ignore
    /// let mut host = unsafe { ctx.alloc_pinned::<f32>(n)? }; // write-combined in cudarc 0.19
    /// stream.memcpy_dtoh(&dev, &mut host)?;
    /// stream.synchronize()?;
    /// let sum: f32 = host.as_slice()?.iter().sum();
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// let mut host = unsafe { ctx.alloc_pinned_with_flags::<f32>(n, 0)? };
    /// stream.memcpy_dtoh(&dev, &mut host)?;
    /// stream.synchronize()?;
    /// let sum: f32 = host.as_slice()?.iter().sum();
    /// ```
    pub WRITE_COMBINED_HOST_READ = "write_combined_host_read", Warn, Perf, "a host read of write-combined pinned memory, which the CPU does not cache"
}

pub fn check<S: Copy + PartialEq, X: Ext>(event: &Event<'_, S>, cx: &Cx<'_, S, X>, out: &mut Vec<Finding<S>>) {
    if !cx.perf_applies() {
        return;
    }
    let Event::HostAccess {
        regions,
        access: Access::Read,
    } = *event
    else {
        return;
    };
    let combined: Vec<Loc> = regions
        .iter()
        .filter(|&l| cx.regions.write_combined(l))
        .map(|l| cx.regions.root(l))
        .collect();
    let Some(&first) = combined.first() else {
        return;
    };
    let target = cx.describe.region(first);
    let some_paths = combined.len() < regions.len();
    let name = target
        .name
        .as_deref()
        .map(|n| format!(" `{n}`"))
        .unwrap_or_default();
    let mut diag = Diagnostic::new(format!(
        "host read of write-combined memory{name}{}",
        paths_suffix(some_paths)
    ));
    if target.origin != cx.span {
        let label = match target.origin_kind {
            Origin::Allocated => format!("{} is allocated here, write-combined", named(&target.name, "this memory")),
            _ => origin_label(&target, "this memory"),
        };
        diag.label(target.origin, label);
    }
    diag.via("the read happens")
        .note(
            "write-combined memory is not cached by the CPU: every host read of it goes over the \
             bus, uncached (cudarc issue #580: 1.287 s against 18.8 ms for the same reads)",
        )
        .help(target.advice.pinned_readback);
    out.push(cx.finding(&WRITE_COMBINED_HOST_READ, "write_combined_host_read", some_paths, diag));
}
