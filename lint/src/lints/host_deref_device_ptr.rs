use clippy_utils::diagnostics::span_lint_hir_and_then;
use rustc_lint::LateContext;

use super::{declare_cuda_lint, note_via, paths_suffix};
use crate::analysis::{Finding, FindingKind};

declare_cuda_lint! {
    /// ### What it does
    /// Checks for host code that reads or writes device memory directly: a raw device pointer
    /// dereferenced, made into a slice (`slice::from_raw_parts`), indexed, or passed to a function
    /// that reads through it (`ptr::read`, formatting).
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
    pub HOST_DEREF_DEVICE_PTR,
    Deny,
    "a host read or write of device memory"
}

pub(super) fn report(cx: &LateContext<'_>, finding: &Finding) {
    let FindingKind::HostDerefDevicePtr {
        target,
        write,
        made_into_slice,
    } = &finding.kind
    else {
        return;
    };
    let what = if *made_into_slice {
        "device memory made into a host slice"
    } else if *write {
        "host write to device memory"
    } else {
        "host read of device memory"
    };
    let msg = format!("{what}{}", paths_suffix(finding));
    span_lint_hir_and_then(
        cx,
        HOST_DEREF_DEVICE_PTR,
        finding.lint_root,
        finding.span,
        msg,
        |diag| {
            if target.origin != finding.span {
                diag.span_label(target.origin, super::origin_label(target, "this memory"));
            }
            note_via(diag, finding, "the access happens");
            diag.note("a device address is not valid on the host: dereferencing it reads garbage or crashes");
            if *write {
                diag.help(target.advice.copy_to_device);
            } else {
                diag.help(target.advice.copy_to_host);
            }
        },
    );
}
