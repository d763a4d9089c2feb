//! `cuda_lint::host_deref_device_ptr`: fires when the host reads or writes memory that only the
//! device can address (device memory, a VMM mapping), or makes a slice or reference of it.

use super::{Cx, origin_label, paths_suffix};
use crate::diagnostic::{Diagnostic, Finding};
use crate::events::Event;
use crate::memory::Access;
use crate::regions::{Loc, LocSet};
use crate::state::Ext;

declare_lint! {
    /// ### What it does
    /// Checks for host code that reads or writes device memory directly: a raw device pointer
    /// dereferenced, made into a slice (`slice::from_raw_parts`), indexed, or passed to a function
    /// that reads through it (`ptr::read`, formatting). It is reported once per allocation in a
    /// function, at the first host access: a slice made of device memory and then read is one
    /// mistake, with one fix.
    ///
    /// ### Why is this bad?
    /// A device address is not a host address. Dereferencing one on the host reads unrelated
    /// memory or, far more often, kills the process with a segmentation fault. Synchronizing first
    /// does not help (CUDA's own "corrected" example of this mistake still crashes), and
    /// compute-sanitizer reports only "process didn't terminate successfully", with no location.
    ///
    /// Device memory is what `cuMemAlloc`, `cudaMalloc`, cudarc's `alloc`/`clone_htod` (then
    /// `device_ptr`, `leak`) and VMM mappings return; managed and pinned memory are host-visible
    /// and not reported. Passing a device pointer to a C function or to another crate's function
    /// (a CUDA library: cuBLAS and the like) is not a host access.
    ///
    /// ### Known problems
    /// A `CUdeviceptr` is a `u64`: one that reaches a function only as a field or parameter,
    /// with nothing in the function saying where it came from, is not known to be device memory
    /// there; it is reported where the allocation is visible (the caller that made it).
    ///
    /// ### Example
    /// ```rust,ignore
    /// let dev = stream.clone_htod(&input)?;
    /// stream.synchronize()?;
    /// let p = dev.device_ptr().as_raw() as *const f32;
    /// let first = unsafe { *p };
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// let dev = stream.clone_htod(&input)?;
    /// let host = stream.clone_dtoh(&dev)?;
    /// let first = host[0];
    /// ```
    pub HOST_DEREF_DEVICE_PTR = "host_deref_device_ptr", Deny, Correctness, "a host read or write of device memory"
}

/// The device-only memory among `regions`, by allocation.
pub(crate) fn device_only<S, X>(regions: &LocSet, cx: &Cx<'_, S, X>) -> Vec<Loc> {
    regions
        .iter()
        .filter(|&l| cx.regions.mem_kind(l).is_some_and(|k| k.is_device_only()))
        .map(|l| cx.regions.root(l))
        .collect()
}

pub fn check<S: Copy + PartialEq, X: Ext>(event: &Event<'_, S>, cx: &Cx<'_, S, X>, out: &mut Vec<Finding<S>>) {
    let (regions, write, made_into) = match *event {
        Event::HostAccess {
            regions,
            access: access @ (Access::Read | Access::Write),
        } => (regions, access == Access::Write, None),
        Event::HostView {
            regions,
            write,
            reference,
        } => (regions, write, Some(if reference { "reference" } else { "slice" })),
        _ => return,
    };
    let device = device_only(regions, cx);
    let Some(&first) = device.first() else {
        return;
    };
    let target = cx.describe.region(first);
    let some_paths = device.len() < regions.len();
    let what = match made_into {
        Some(view) => format!("device memory made into a host {view}"),
        None if write => "host write to device memory".to_string(),
        None => "host read of device memory".to_string(),
    };
    let mut diag = Diagnostic::new(format!("{what}{}", paths_suffix(some_paths)));
    if target.origin != cx.span {
        diag.label(target.origin, origin_label(&target, "this memory"));
    }
    diag.via("the access happens")
        .note("a device address is not valid on the host: dereferencing it reads garbage or crashes")
        .help(if write {
            target.advice.copy_to_device
        } else {
            target.advice.copy_to_host
        });
    out.push(cx.finding(&HOST_DEREF_DEVICE_PTR, "host_deref_device_ptr", some_paths, diag));
}
