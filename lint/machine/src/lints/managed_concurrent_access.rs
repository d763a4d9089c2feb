//! `cuda_lint::managed_concurrent_access`: fires when the host touches managed memory while a
//! kernel that does not use it may still run (on devices without concurrent managed access, the
//! GPU owns all managed memory while any kernel runs).

use super::{Cx, origin_label, paths_suffix};
use crate::diagnostic::{Diagnostic, Finding};
use crate::events::Event;
use crate::memory::{Access, MemKind};
use crate::ops::OpKind;
use crate::regions::{Loc, LocSet};
use crate::state::Ext;

declare_lint! {
    /// ### What it does
    /// Checks for host reads and writes of managed memory (`cuMemAllocManaged`,
    /// `cudaMallocManaged`, cudarc's `UnifiedSlice`, the runtime layer's `ManagedBuffer`) while a
    /// kernel may still be running that does not use that memory. (When work that may still run
    /// uses that memory, a kernel or a copy, `cuda_lint::missing_sync` reports the access, and
    /// this lint does not: one finding per access.) It is reported once per allocation in a
    /// function, at its first such access: filling the fields of a managed struct is one missing
    /// wait.
    ///
    /// ### Why is this bad?
    /// On a device whose `CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS` is 0, the GPU has
    /// exclusive access to all managed memory while any kernel runs, whatever memory the kernel
    /// uses: a host access in that window faults (a segmentation fault, seed 004: "Kepler GPUs
    /// disallow the simultaneous access by host and device of shared data"). Such devices are
    /// GPUs before Pascal, GPUs under Windows (where managed memory keeps the pre-Pascal model),
    /// and some Tegra (Jetson) systems. Where the attribute is 1 (Pascal and later on Linux), the
    /// access is legal and only migrates pages.
    ///
    /// Default level `warn`: most Rust CUDA code runs on Linux with Pascal or later GPUs, where the
    /// access is legal, so denying it would fail builds of correct programs; but a program that
    /// is also run on Windows or on a Jetson crashes there, and the fix (waiting for the kernels
    /// first, or a host buffer) costs little. Deny it in `cuda-lint.toml` if you target such
    /// devices; allow it if you only target devices with concurrent managed access.
    ///
    /// ### Known problems
    /// The device's attribute is not read: a program that checks it and takes another path is
    /// reported all the same. Memory attached to the host or to one stream
    /// (`cudaMemAttachHost`, `cudaStreamAttachMemAsync(.., cudaMemAttachSingle)`) is not
    /// reported, since kernels on other streams do not take it: both front ends read the attach
    /// flags when they are constants (`cuMemAllocManaged`/`cudaMallocManaged` flags,
    /// `cu`/`cudaStreamAttachMemAsync`, cudarc's `alloc_unified(len, false)` and
    /// `UnifiedSlice::attach`). Kernels are not told apart by context: a kernel on another
    /// device's context counts too.
    ///
    /// ### Example
    /// ```rust,ignore
    /// let managed = unsafe { stream.alloc_unified::<f32>(n, true)? };
    /// unsafe { other_stream.launch_builder(&f).arg(&mut other).launch(cfg)? };
    /// let x = managed.as_slice()?[0]; // faults while the kernel runs, without concurrent access
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// unsafe { other_stream.launch_builder(&f).arg(&mut other).launch(cfg)? };
    /// ctx.synchronize()?; // or other_stream.synchronize()?
    /// let x = managed.as_slice()?[0];
    /// ```
    pub MANAGED_CONCURRENT_ACCESS = "managed_concurrent_access", Warn, Correctness, "a host access to managed memory while a kernel may run, which faults on devices without concurrent managed access"
}

pub fn check<S: Copy + PartialEq, X: Ext>(event: &Event<'_, S>, cx: &Cx<'_, S, X>, out: &mut Vec<Finding<S>>) {
    let (regions, write) = match *event {
        Event::HostAccess {
            regions,
            access: Access::Read,
        } => (regions, false),
        Event::HostAccess {
            regions,
            access: Access::Write,
        } => (regions, true),
        // A view (`slice::from_raw_parts`) is not yet an access: the reads and writes through it
        // are reported.
        _ => return,
    };
    // Memory attached to the host is no kernel's to take; attached to one stream, only that
    // stream's kernels take it.
    let managed: LocSet = regions
        .iter()
        .filter(|&l| {
            let root = cx.regions.root(l);
            cx.regions.mem_kind(root) == Some(MemKind::Managed)
                && (!cx.regions.attached(root) || !cx.regions.attached_streams(root).is_empty())
        })
        .collect();
    let Some(first) = managed.iter().next() else {
        return;
    };
    // Work that may still run and uses this memory makes the access `missing_sync`'s finding:
    // reported once, there.
    let running = |op| cx.machine.may_be_running(cx.state, op);
    if cx
        .state
        .inflight_may
        .iter()
        .any(|op| running(op) && cx.machine.op(op).uses_any(&managed, cx.regions))
    {
        return;
    }
    // A kernel that may still run (and, from the above, does not use this memory), and that
    // takes it: any kernel for memory attached to all, one on its stream for memory attached to
    // one stream.
    let takes_it = |o: &crate::ops::Op| {
        managed.iter().any(|l| {
            let root = cx.regions.root(l);
            !cx.regions.attached(root) || {
                let streams = cx.regions.attached_streams(root);
                !streams.is_empty() && o.streams.iter().any(|s| streams.contains(s))
            }
        })
    };
    let Some(kernel) = cx.state.inflight_may.iter().find(|&op| {
        let o = cx.machine.op(op);
        o.kind == OpKind::Launch
            && cx.machine.may_be_running(cx.state, op)
            && !o.uses_any(&managed, cx.regions)
            && takes_it(o)
    }) else {
        return;
    };
    out.push(finding(cx.regions.root(first), kernel, write, cx));
}

fn finding<S: Copy + PartialEq, X: Ext>(
    root: Loc,
    kernel: crate::ops::OpId,
    write: bool,
    cx: &Cx<'_, S, X>,
) -> Finding<S> {
    let some_paths = !cx.state.surely_running(kernel);
    let target = cx.describe.region(root);
    let name = target
        .name
        .as_deref()
        .map(|n| format!(" `{n}`"))
        .unwrap_or_default();
    let mut diag = Diagnostic::new(format!(
        "host {} of managed memory{name} while a kernel may still run{}",
        if write { "write" } else { "read" },
        paths_suffix(some_paths)
    ));
    if target.origin != cx.span {
        diag.label(target.origin, origin_label(&target, "this memory"));
    }
    let running = cx.describe.in_flight(kernel);
    if running.span != cx.span {
        let on = running.stream.as_ref().map(|s| format!(" on `{s}`")).unwrap_or_default();
        diag.label(running.span, format!("this {}{on} may still run", running.what));
    }
    diag.via("the access happens")
        .note(
            "on devices without concurrent managed access (CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS \
             = 0: before Pascal, under Windows, some Jetsons) the GPU owns all managed memory while any \
             kernel runs, and this access faults",
        )
        .help(format!(
            "wait for the kernel first ({}), or keep host data that kernels do not use outside managed memory",
            running.advice.sync_stream.replace("{stream}", running.stream.as_deref().unwrap_or("the stream"))
        ));
    cx.finding(&MANAGED_CONCURRENT_ACCESS, "managed_concurrent_access", some_paths, diag)
}
