//! `cuda_lint::unfenced_vmm_alias`: fires when two mappings of one physical allocation are used
//! - by one kernel launch (as two of its arguments), unless every kernel it may run executes
//!   `fence.proxy.alias`; or
//! - by work on two streams that nothing orders.

use super::{Cx, named, origin_label, paths_suffix};
use crate::diagnostic::{Diagnostic, Finding};
use crate::events::{Event, Kernel, Origin, Region};
use crate::memory::MemKind;
use crate::ops::Op;
use crate::regions::{Loc, LocSet};
use crate::state::Ext;

declare_lint! {
    /// ### What it does
    /// Checks for two VMM mappings (`cuMemMap`) of one physical allocation that are used by one
    /// kernel whose CUDA source has no `fence.proxy.alias`, or by operations on different streams
    /// with no event or stream ordering between them. When the kernel's source is visible (a
    /// string or `include_str!` compiled with NVRTC), it is read; when it is not, nothing is
    /// reported here: the allow-by-default `cuda_lint::unverified` says which launches could not
    /// be checked.
    ///
    /// ### Why is this bad?
    /// Each virtual alias of a physical allocation is its own proxy: writes through one are not
    /// coherent with reads through another until the writing operation completes, or, within one
    /// kernel, until it executes `fence.proxy.alias` (CUDA Programming Guide, "Virtual Aliasing
    /// Support"). Without it, reads through the second mapping return stale data: 32 stale reads
    /// over 50 launches on an H200, none with the fence. compute-sanitizer reports no hazard.
    ///
    /// With cudarc, mappings wrapped in `CudaSlice`s (`upgrade_device_ptr`) are two slices with
    /// events of their own: cudarc never orders work on one after work on the other.
    ///
    /// One reservation can hold two mappings: the mirrored ring buffer maps one allocation at
    /// `base` and at `base + size`. Each offset at which the program maps is a mapping of its
    /// own; an address computed from a stored size (`self.base + self.size`) is taken to be the
    /// view past the start where the reservation maps one allocation twice, and an allocation
    /// mapped at computed offsets in a loop (`cuMemMap(base + i * size, ..)`) may be at any
    /// offset of its reservation that is not mapped otherwise.
    ///
    /// ### Known problems
    /// Mappings created by one call in a loop (pushed into a `Vec`, say) are one mapping to the
    /// analysis: two of them passed to one kernel are not told apart from one passed twice, so
    /// that case is not reported. A reservation whose chunks are mapped in a loop, each to a new
    /// allocation, and used at two constant offsets is reported as if it were mirrored.
    ///
    /// ### Example
    /// ```rust,ignore
    /// // __global__ void k(int* a, const int* b, int* out) { a[i] = 1; out[i] = b[i]; }
    /// let a = range_a.map(&physical, 0)?;
    /// let b = range_b.map(&physical, 0)?;
    /// unsafe { stream.launch(&k, cfg, &[&a, &b, &out])? };
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// // __global__ void k(int* a, const int* b, int* out) {
    /// //     a[i] = 1; asm volatile("fence.proxy.alias;" ::: "memory"); out[i] = b[i]; }
    /// unsafe { stream.launch(&k, cfg, &[&a, &b, &out])? };
    /// ```
    /// or, across streams, record an event after the first work and `wait_event` on it.
    pub UNFENCED_VMM_ALIAS = "unfenced_vmm_alias", Deny, Correctness, "two mappings of one physical allocation used without `fence.proxy.alias` or stream ordering"
}

pub fn check<S: Copy + PartialEq, X: Ext>(event: &Event<'_, S>, cx: &Cx<'_, S, X>, out: &mut Vec<Finding<S>>) {
    match *event {
        Event::Launch {
            slots,
            apart,
            written,
            kernel,
        } => in_one_kernel(slots, apart, written, kernel, cx, out),
        Event::Enqueue { op: new } => {
            let op = cx.machine.op(new);
            for other in cx.state.inflight_may.iter() {
                if other == new
                    || !cx.machine.may_be_running(cx.state, other)
                    || cx.machine.ordered_before(cx.state, other, &op.streams)
                {
                    continue;
                }
                let Some((a, b)) = alias_between(op, cx.machine.op(other), cx) else {
                    continue;
                };
                let some_paths = !cx.state.surely_running(other);
                let (first, second) = (cx.describe.region(b), cx.describe.region(a));
                let other = cx.describe.in_flight(other);
                let mut diag = Diagnostic::new(format!(
                    "two mappings of one physical allocation are used by unordered work on different streams{}",
                    paths_suffix(some_paths)
                ));
                label_mappings(&mut diag, cx.span, &first, &second);
                if other.span != cx.span {
                    let on = other.stream.as_ref().map(|s| format!(" on `{s}`")).unwrap_or_default();
                    diag.label(other.span, format!("this {}{on} uses the other mapping", other.what));
                }
                diag.via("the work is enqueued")
                    .help(format!("{}, or run both on one stream", other.advice.order_streams));
                out.push(cx.finding(&UNFENCED_VMM_ALIAS, "alias_across_streams", some_paths, diag));
            }
        }
        _ => {}
    }
}

fn is_mapping<S, X>(l: Loc, cx: &Cx<'_, S, X>) -> bool {
    cx.regions.mem_kind(l) == Some(MemKind::VmmMapping)
}

/// Two mappings of one physical allocation, one used by `op` and the other by `other`, at
/// least one of them written (two readers see the same bytes through either alias): the
/// mapping `op` uses first.
pub(crate) fn alias_between<S, X>(op: &Op, other: &Op, cx: &Cx<'_, S, X>) -> Option<(Loc, Loc)> {
    let mappings = |sets: &[&LocSet]| -> Vec<Loc> {
        sets.iter()
            .flat_map(|s| s.iter())
            .filter(|l| is_mapping(*l, cx))
            .collect()
    };
    let (mine_all, mine_written) = (mappings(&[&op.reads, &op.writes]), mappings(&[&op.writes]));
    let (theirs_all, theirs_written) = (
        mappings(&[&other.reads, &other.writes]),
        mappings(&[&other.writes]),
    );
    cx.machine
        .alias_pair(&mine_written, &theirs_all, cx.regions)
        .or_else(|| cx.machine.alias_pair(&mine_all, &theirs_written, cx.regions))
}

/// Two mappings of one physical allocation that one launch reaches through two arguments (one
/// argument is one pointer, however many mappings it may be), at least one of them written
/// through: two loads see the same bytes through either alias.
pub(crate) fn alias_in_launch<S, X>(
    slots: &[LocSet],
    apart: bool,
    written: Option<&[bool]>,
    cx: &Cx<'_, S, X>,
) -> Option<(Loc, Loc)> {
    let mappings_of = |set: &LocSet| -> Vec<Loc> {
        let mut v: Vec<Loc> = set
            .iter()
            .filter(|l| is_mapping(*l, cx))
            .map(|l| cx.regions.mapping(l))
            .collect();
        v.sort();
        v.dedup();
        v
    };
    // Two arguments (one argument is one pointer, however many mappings it may be), at least
    // one of them written through: two loads see the same bytes through either alias.
    let per_slot: Vec<Vec<Loc>> = slots.iter().map(mappings_of).collect();
    let writes = |i: usize| written.is_none_or(|w| w.get(i).copied().unwrap_or(true));
    let mut pair = None;
    for (i, a) in per_slot.iter().enumerate() {
        for (j, b) in per_slot.iter().enumerate() {
            if (i != j || !apart) && (writes(i) || writes(j)) && pair.is_none() {
                pair = cx.machine.alias_pair(a, b, cx.regions);
            }
        }
    }
    pair
}

fn in_one_kernel<S: Copy + PartialEq, X: Ext>(
    slots: &[LocSet],
    apart: bool,
    written: Option<&[bool]>,
    kernel: Option<&Kernel>,
    cx: &Cx<'_, S, X>,
    out: &mut Vec<Finding<S>>,
) {
    // A kernel whose source was not seen (or not found) may fence: `unverified` says so.
    let Some(kernel @ Kernel::Unfenced { .. }) = kernel else {
        return;
    };
    let Some((a, b)) = alias_in_launch(slots, apart, written, cx) else {
        return;
    };
    let Kernel::Unfenced { name } = kernel else {
        return;
    };
    let (first, second) = (cx.describe.region(a), cx.describe.region(b));
    let mut diag = Diagnostic::new(format!(
        "kernel `{name}` uses two mappings of one physical allocation without `fence.proxy.alias`"
    ));
    label_mappings(&mut diag, cx.span, &first, &second);
    diag.via("the launch happens").note(
        "writes through one virtual alias are not coherent with reads through \
         another until `fence.proxy.alias` executes",
    );
    diag.help(
        "execute `asm volatile(\"fence.proxy.alias;\" ::: \"memory\");` in the kernel \
         between the accesses through the two mappings",
    );
    out.push(cx.finding(&UNFENCED_VMM_ALIAS, "alias_in_one_kernel", false, diag));
}

pub(crate) fn label_mappings<S: Copy + PartialEq>(diag: &mut Diagnostic<S>, span: S, first: &Region<S>, second: &Region<S>) {
    if first.origin != span {
        diag.label(first.origin, origin_label(first, "one mapping"));
    }
    if second.origin != span && second.origin != first.origin {
        let label = match second.origin_kind {
            Origin::Mapped => format!("{} maps it again here", named(&second.name, "another mapping")),
            _ => origin_label(second, "another mapping"),
        };
        diag.label(second.origin, label);
    }
}
