//! `cuda_lint::memcpy_kind_mismatch`: fires when a copy's stated direction contradicts where
//! its memory lives (a device-to-host copy into device memory, a host-to-device copy from it).

use super::{Cx, named, origin_label};
use crate::diagnostic::{Diagnostic, Finding};
use crate::events::Event;
use crate::memory::{Dir, MemKind};
use crate::regions::{Loc, LocSet};
use crate::state::Ext;

declare_lint! {
    /// ### What it does
    /// Checks for copies whose stated direction contradicts the memory they are given: the
    /// `cudaMemcpyKind` of `cudaMemcpy`/`cudaMemcpyAsync`/`cudaMemcpy2D` (and their kin), or the
    /// direction of a function of one direction (`cuMemcpyHtoD`, `cuMemcpyDtoHAsync`, cudarc's
    /// `memcpy_htod`), against where the destination and source were allocated. It fires where
    /// the side the direction calls device memory is pageable host memory (`malloc`, `new`, a
    /// `std::vector`, a `Vec`, a stack array), or the side it calls host memory is device memory
    /// (`cudaMalloc`, `cuMemAlloc`, a VMM mapping): typically the destination and source swapped
    /// (DRACC 017/018), or the kind of another copy pasted.
    ///
    /// ### Why is this bad?
    /// The runtime API: "Calling `cudaMemcpy()` with dst and src pointers that do not match the
    /// direction of the copy results in an undefined behavior." In practice the call fails with
    /// `cudaErrorInvalidValue` (often unchecked) and nothing is copied, or, where the pointers
    /// happen to be valid for the other side, the data goes the wrong way: the device computes
    /// on stale inputs and the host reads stale results.
    ///
    /// Managed memory and pinned host memory are accessible from both sides and never
    /// contradict a direction; nor does `cudaMemcpyDefault`, which takes the direction from the
    /// pointers.
    ///
    /// ### Known problems
    /// Only memory whose allocation the analysis saw is judged: a pointer given by a caller it
    /// cannot see, or one that may hold memory of several kinds, is not reported. A kind held in
    /// a variable whose value is not a constant is not read.
    ///
    /// ### Example
    /// ```rust,ignore
    /// // C++: the destination and source of the upload are swapped.
    /// cudaMemcpy(h_b, d_b, bytes, cudaMemcpyHostToDevice);
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice);
    /// ```
    pub MEMCPY_KIND_MISMATCH = "memcpy_kind_mismatch", Deny, Correctness, "a copy whose stated direction contradicts where its memory lives (destination and source swapped)"
}

/// Which side of a copy a direction makes host memory, and which device memory.
#[derive(Copy, Clone, PartialEq)]
enum Side {
    Host,
    Device,
}

/// The memory of `side` contradicts it everywhere it may be: device-only memory said to be
/// host memory, pageable memory said to be device memory. Its first such region, when every
/// region it may be does (memory of unknown kind is no evidence).
fn contradicting(set: &LocSet, side: Side, cx: &Cx<'_, impl Copy, impl Ext>) -> Option<(Loc, MemKind)> {
    let mut first = None;
    for l in set.iter() {
        let kind = cx.regions.mem_kind(l)?;
        let wrong = match side {
            Side::Host => kind.is_device_only(),
            Side::Device => kind == MemKind::Pageable,
        };
        if !wrong {
            return None;
        }
        first.get_or_insert((cx.regions.root(l), kind));
    }
    first
}

pub fn check<S: Copy + PartialEq, X: Ext>(event: &Event<'_, S>, cx: &Cx<'_, S, X>, out: &mut Vec<Finding<S>>) {
    let Event::StatedCopy { dst, src, dir } = *event else {
        return;
    };
    let (dst_side, src_side, stated) = match dir {
        Dir::HostToDevice => (Side::Device, Side::Host, "host-to-device"),
        Dir::DeviceToHost => (Side::Host, Side::Device, "device-to-host"),
        Dir::DeviceToDevice => (Side::Device, Side::Device, "device-to-device"),
        Dir::HostToHost => (Side::Host, Side::Host, "host-to-host"),
        Dir::Unknown => return,
    };
    for (set, side, role) in [(dst, dst_side, "destination"), (src, src_side, "source")] {
        let Some((root, kind)) = contradicting(set, side, cx) else {
            continue;
        };
        let target = cx.describe.region(root);
        let said = match side {
            Side::Host => "host memory",
            Side::Device => "device memory",
        };
        let mut diag = Diagnostic::new(format!(
            "the {role} of this {stated} copy is {}, not {said}",
            kind.describe()
        ));
        if target.origin != cx.span {
            diag.label(target.origin, origin_label(&target, "this memory"));
        }
        diag.via("the copy is made")
            .note("a copy whose direction does not match its pointers is undefined behavior: the call fails, often unchecked, or copies the wrong way")
            .help(format!(
                "check the order of the destination and the source, and the direction stated; {} is {}",
                named(&target.name, "this memory"),
                kind.describe()
            ));
        out.push(cx.finding(&MEMCPY_KIND_MISMATCH, "memcpy_kind_mismatch", false, diag));
        // One report per copy: the other side is usually the same mistake.
        return;
    }
}
