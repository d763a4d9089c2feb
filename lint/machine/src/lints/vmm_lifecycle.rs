//! `cuda_lint::vmm_lifecycle`: fires when a VMM mapping is used by the device before
//! `cuMemSetAccess` grants access to it, and when a reserved range is freed while still mapped.

use super::{Cx, origin_label, paths_suffix};
use crate::diagnostic::{Diagnostic, Finding};
use crate::events::Event;
use crate::memory::MemKind;
use crate::regions::{Loc, LocSet};
use crate::state::Ext;

declare_lint! {
    /// ### What it does
    /// Checks the order of the VMM calls around a mapping (CUDA Programming Guide, "Virtual
    /// Memory Management": reserve, create, map, set access, use; then unmap, release, free the
    /// range):
    /// - a mapping used by a kernel, a copy or a memset before `cuMemSetAccess` grants the
    ///   device access to it, including after `cuMemUnmap` and a new `cuMemMap`: a mapping
    ///   starts with no access, whatever the range had before;
    /// - a reserved range freed (`cuMemAddressFree`) while some of it is still mapped;
    /// - a range mapped again (`cuMemMap`) while it is still mapped: "users can map and unmap
    ///   memory to the same address range as many times as they want, so long as they ensure
    ///   that they don't attempt to create mappings on VA range reservations that are already
    ///   mapped". A range at an offset that is not a constant (`base + self.mapped`, an arena
    ///   that grows) is not taken for one already mapped.
    ///
    /// Releasing the handle (`cuMemRelease`) while mappings of it exist is not reported: CUDA
    /// allows it, and frees the memory when the last mapping goes. Unmapping a range that work
    /// in flight still uses (`cuMemUnmap` does not wait for the device: vLLM #43020, TensorRT-LLM
    /// #11641) is `cuda_lint::missing_sync`'s finding, like any other free.
    ///
    /// This project's runtime layer sets access in `VirtualRange::map` and unmaps, releases and
    /// frees in that order on drop, so these are misuses of the driver API (raw bindings,
    /// cudarc's `driver::sys`) and of the pointers it returns, whichever API then uses them.
    ///
    /// ### Why is this bad?
    /// A mapping without access cannot be used by the device: a kernel that touches it faults
    /// (`CUDA_ERROR_ILLEGAL_ADDRESS` at the next synchronization, which compute-sanitizer
    /// reports as an out-of-bounds access, and the context is lost); a memset of it is refused
    /// (`CUDA_ERROR_INVALID_VALUE`). `cuMemAddressFree` of a mapped range fails with
    /// `CUDA_ERROR_INVALID_VALUE` (compute-sanitizer: a generic API error) and the range stays
    /// reserved: release code seldom checks it. All three measured on an H100 with driver 580
    /// (`runtime/gpu-results/2026-11-25-vmm-lifecycle.md`).
    ///
    /// ### Known problems
    /// Access is tracked per mapping, not per byte: `cuMemSetAccess` on a range's start is taken
    /// to grant access to every mapping in the range, whatever its size. Mappings the analysis
    /// did not see made (a pointer from a parameter, from code it cannot read) are not judged,
    /// and a grant or an unmap at an address it cannot follow is taken to cover every mapping.
    /// A range freed while mapped on some paths only (a mapping made under an `if`, or in a
    /// loop) is not reported: mappings made and unmapped in loops, a chunk per iteration, would
    /// look mapped on the path where the loops did not run.
    ///
    /// ### Example
    /// ```rust,ignore
    /// cuMemAddressReserve(&mut va, size, 0, 0, 0);
    /// cuMemMap(va, size, 0, handle, 0);
    /// cuMemsetD32Async(va, 0, size / 4, stream); // no access: illegal address
    /// // ...
    /// cuMemAddressFree(va, size); // still mapped: CUDA_ERROR_INVALID_VALUE
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// cuMemAddressReserve(&mut va, size, 0, 0, 0);
    /// cuMemMap(va, size, 0, handle, 0);
    /// cuMemSetAccess(va, size, &access, 1); // CU_MEM_ACCESS_FLAGS_PROT_READWRITE for the device
    /// cuMemsetD32Async(va, 0, size / 4, stream);
    /// // ...
    /// cuStreamSynchronize(stream);
    /// cuMemUnmap(va, size);
    /// cuMemRelease(handle);
    /// cuMemAddressFree(va, size);
    /// ```
    pub VMM_LIFECYCLE = "vmm_lifecycle", Deny, Correctness, "a VMM mapping used before `cuMemSetAccess`, or a reserved range freed while still mapped"
}

pub fn check<S: Copy + PartialEq, X: Ext>(event: &Event<'_, S>, cx: &Cx<'_, S, X>, out: &mut Vec<Finding<S>>) {
    match *event {
        Event::Enqueue { op } => {
            let op_ref = cx.machine.op(op);
            let mut seen = LocSet::new();
            for l in op_ref.reads.iter().chain(op_ref.writes.iter()) {
                if cx.regions.mem_kind(l) != Some(MemKind::VmmMapping) {
                    continue;
                }
                let view = cx.regions.mapping(l);
                if !seen.insert(view) {
                    continue;
                }
                // Mapped on every path and granted access on some only; or mapped on some
                // path and granted access on none (where it was not mapped, it was not used:
                // a mapping made in a loop that may not run is in the loop's collection).
                let (mapped_must, access_may) = (
                    cx.state.mapped_must.contains(view),
                    cx.state.access_may.contains(view),
                );
                let fires = if mapped_must {
                    !cx.state.access_must.contains(view)
                } else {
                    cx.state.mapped_may.contains(view) && !access_may
                };
                if !fires {
                    continue;
                }
                let some_paths = access_may || !mapped_must;
                out.push(used_without_access(view, op_ref.kind.describe(), some_paths, cx));
                // One finding per operation: the first mapping it uses without access.
                return;
            }
        }
        Event::Map { views } => {
            // A range at an offset not known (`base + self.mapped`) is no evidence of the same
            // range: each grow of an arena maps the next part.
            let Some(view) = views
                .iter()
                .find(|&v| cx.state.mapped_must.contains(v) && !cx.regions.at_unknown_offset(v))
            else {
                return;
            };
            let target = cx.describe.region(view);
            let name = target
                .name
                .as_deref()
                .map(|n| format!(" `{n}`"))
                .unwrap_or_default();
            let mut diag = Diagnostic::new(format!("the range{name} is mapped again while it is still mapped"));
            if target.origin != cx.span {
                diag.label(target.origin, origin_label(&target, "the mapping"));
            }
            diag.via("the range is mapped")
                .note("`cuMemMap` on a range that is already mapped fails, and the old mapping stays")
                .help("`cuMemUnmap` the range (after the work that uses it) before mapping it again");
            out.push(cx.finding(&VMM_LIFECYCLE, "map_over_mapping", false, diag));
        }
        Event::AddressFree { regions } => {
            // Mapped on every path: a range mapped and unmapped in loops that may not run (a
            // chunk per iteration) is mapped "on some path" only where nothing was mapped.
            let views = cx.machine.mappings_at(cx.state, regions, cx.regions);
            let Some(first) = views.iter().find(|&v| cx.state.mapped_must.contains(v)) else {
                return;
            };
            out.push(freed_while_mapped(first, cx));
        }
        _ => {}
    }
}

fn used_without_access<S: Copy + PartialEq, X: Ext>(
    view: Loc,
    what: &str,
    some_paths: bool,
    cx: &Cx<'_, S, X>,
) -> Finding<S> {
    let target = cx.describe.region(view);
    let name = target
        .name
        .as_deref()
        .map(|n| format!(" `{n}`"))
        .unwrap_or_default();
    let mut diag = Diagnostic::new(format!(
        "{what} uses the VMM mapping{name} before `cuMemSetAccess` grants the device access to it{}",
        paths_suffix(some_paths)
    ));
    if target.origin != cx.span {
        diag.label(target.origin, origin_label(&target, "the mapping"));
    }
    diag.via("the work is enqueued")
        .note(
            "a mapping starts with no access, also after an unmap and a new map: a kernel that \
             touches it faults (CUDA_ERROR_ILLEGAL_ADDRESS), a memset of it is refused \
             (CUDA_ERROR_INVALID_VALUE)",
        )
        .help(
            "after `cuMemMap`, call `cuMemSetAccess` on the mapped range with a \
             `CUmemAccessDesc` giving this device `CU_MEM_ACCESS_FLAGS_PROT_READWRITE`",
        );
    cx.finding(&VMM_LIFECYCLE, "use_without_access", some_paths, diag)
}

fn freed_while_mapped<S: Copy + PartialEq, X: Ext>(view: Loc, cx: &Cx<'_, S, X>) -> Finding<S> {
    let target = cx.describe.region(view);
    let name = target
        .name
        .as_deref()
        .map(|n| format!(" `{n}`"))
        .unwrap_or_default();
    let mut diag = Diagnostic::new(format!("the reserved range is freed while{name} is still mapped"));
    if target.origin != cx.span {
        diag.label(target.origin, origin_label(&target, "the mapping"));
    }
    diag.via("the range is freed")
        .note(
            "`cuMemAddressFree` of a range that is still mapped fails with \
             CUDA_ERROR_INVALID_VALUE, and the range stays reserved",
        )
        .help("`cuMemUnmap` every mapping in the range first: unmap, release the handle, then free the range");
    cx.finding(&VMM_LIFECYCLE, "address_free_while_mapped", false, diag)
}
