//! `cuda_lint::mismatched_free`: fires when memory is released by a function of another
//! allocator than the one that made it, or unregistered though it was never registered.

use super::{Cx, origin_label};
use crate::diagnostic::{Diagnostic, Finding};
use crate::events::Event;
use crate::memory::Allocator;
use crate::regions::Loc;
use crate::state::Ext;

declare_lint! {
    /// ### What it does
    /// Checks that memory is released by the function of the allocator that made it:
    /// - device memory (`cuMemAlloc`, `cudaMalloc`, `cuMemAllocManaged`...) by `cuMemFree` or
    ///   `cudaFree` (or their stream-ordered forms), not by `cuMemFreeHost`/`cudaFreeHost`;
    /// - pinned host memory from `cuMemAllocHost`, `cuMemHostAlloc`, `cudaMallocHost` or
    ///   `cudaHostAlloc` by `cuMemFreeHost`/`cudaFreeHost`, not by `cuMemFree`/`cudaFree`, and
    ///   not by `libc::free`;
    /// - C heap memory (`malloc`...) by `free`, not by a CUDA function;
    /// - a module's global (`cuModuleGetGlobal`, `cudaGetSymbolAddress`) by nothing at all: it
    ///   is not an allocation (cudarc issue #514 freed one);
    /// - `cuMemHostUnregister`/`cudaHostUnregister` only of memory registered with
    ///   `cuMemHostRegister`/`cudaHostRegister`.
    ///
    /// Freeing a `cuMemAllocAsync` allocation with `cuMemFree` is allowed and not reported here.
    /// The driver documents that `cuMemFree` "will not perform any implicit synchronization when
    /// the pointer was allocated with `cuMemAllocAsync` or `cuMemAllocFromPoolAsync`. Callers
    /// must ensure that all accesses to these pointers have completed" (for other pointers it may
    /// synchronize): whether work may still use such memory is `cuda_lint::missing_sync`'s
    /// question, which treats that free as immediate (cuda-oxide PR #89).
    ///
    /// ### Why is this bad?
    /// The driver refuses, and the memory leaks: release paths seldom check the status. On an
    /// H100 with driver 580, `cuMemFree` of pinned memory, `cuMemFreeHost` of device memory,
    /// `cuMemFree` of a module's global and `cuMemHostUnregister` of memory never registered
    /// each returned `CUDA_ERROR_INVALID_VALUE` (`runtime/gpu-results/2026-11-25-mismatched-free.md`).
    /// `libc::free` of pinned memory corrupts the C heap: the program crashes later, somewhere
    /// else.
    ///
    /// ### Known problems
    /// Memory whose allocation the analysis did not see (a parameter, a field filled elsewhere)
    /// is not judged, nor a pointer that may be memory of the right kind on some path (a
    /// program that allocates one way or another and releases to match is not reported).
    /// cudarc's and this project's runtime layer's safe types release their memory themselves
    /// and cannot be mismatched.
    ///
    /// ### Example
    /// ```rust,ignore
    /// let mut host: *mut c_void = null_mut();
    /// cuMemAllocHost_v2(&mut host, bytes);
    /// // ...
    /// cuMemFree_v2(host as CUdeviceptr); // CUDA_ERROR_INVALID_VALUE: not device memory
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// cuMemFreeHost(host);
    /// ```
    pub MISMATCHED_FREE = "mismatched_free", Deny, Correctness, "memory released by a function of another allocator than the one that made it"
}

pub fn check<S: Copy + PartialEq, X: Ext>(event: &Event<'_, S>, cx: &Cx<'_, S, X>, out: &mut Vec<Finding<S>>) {
    match *event {
        Event::Dealloc { regions, by } => {
            // Every allocation the pointer may be must be another allocator's (on a path where
            // it is memory this function releases, the release is right: `if (pinned)
            // cudaFreeHost(p); else free(p);` after allocating each way).
            let Some(roots) = regions.iter().map(|l| cx.regions.allocation(l)).collect::<Option<Vec<Loc>>>() else {
                return;
            };
            // Memory of Rust's allocator (or a C++ container's) is judged only where it is unregistered: a pointer the
            // analysis finds in it may be one stored in its elements (an item of an iterator
            // it does not follow), which any allocator may have made.
            let made: Vec<Option<Allocator>> = roots
                .iter()
                .map(|&r| {
                    cx.regions
                        .allocator(r)
                        .filter(|&a| !matches!(a, Allocator::RustHeap | Allocator::CppContainer))
                })
                .collect();
            if made.is_empty() || made.iter().any(|a| a.is_none_or(|a| a == by)) {
                return;
            }
            let (root, made) = (roots[0], made[0].unwrap_or(by));
            let mut diag = Diagnostic::new(match made {
                Allocator::ModuleGlobal => format!(
                    "{} is a module's global, not an allocation, and is released as {}",
                    subject(root, cx),
                    by.short()
                ),
                _ => format!("{} ({}) is released as {}", subject(root, cx), made.short(), by.short()),
            });
            label_origin(&mut diag, root, made, cx);
            diag.via("it is released")
                .note(format!(
                    "this function releases {}; the driver refuses the rest (CUDA_ERROR_INVALID_VALUE) \
                     and the memory leaks",
                    by.made_by()
                ))
                .help(format!("release it with {}", made.released_by()));
            out.push(cx.finding(&MISMATCHED_FREE, "mismatched_free", false, diag));
        }
        Event::Unregister { regions } => {
            // Every allocation it may be must be known and registered on no path.
            let Some(roots) = regions.iter().map(|l| cx.regions.allocation(l)).collect::<Option<Vec<Loc>>>() else {
                return;
            };
            if roots.is_empty()
                || roots
                    .iter()
                    .any(|&r| cx.state.registered_may.contains(r) || cx.regions.allocator(r).is_none())
            {
                return;
            }
            let root = roots[0];
            let Some(made) = cx.regions.allocator(root) else {
                return;
            };
            let mut diag = Diagnostic::new(format!(
                "{} is unregistered, but it was never registered",
                subject(root, cx)
            ));
            label_origin(&mut diag, root, made, cx);
            diag.via("it is unregistered")
                .note(
                    "`cuMemHostUnregister` takes only memory page-locked by `cuMemHostRegister`: the \
                     driver refuses the rest (CUDA_ERROR_INVALID_VALUE)",
                )
                .help(format!(
                    "drop the unregister; release {} with {}",
                    match made {
                        Allocator::ModuleGlobal => "this memory",
                        _ => "it",
                    },
                    made.released_by()
                ));
            out.push(cx.finding(&MISMATCHED_FREE, "unregister_not_registered", false, diag));
        }
        _ => {}
    }
}

fn subject<S: Copy + PartialEq, X: Ext>(root: Loc, cx: &Cx<'_, S, X>) -> String {
    match cx.describe.region(root).name {
        Some(n) => format!("`{n}`"),
        None => "this memory".to_string(),
    }
}

fn label_origin<S: Copy + PartialEq, X: Ext>(diag: &mut Diagnostic<S>, root: Loc, made: Allocator, cx: &Cx<'_, S, X>) {
    let region = cx.describe.region(root);
    if region.origin != cx.span {
        let name = super::named(&region.name, "this memory");
        let label = match (made, region.origin_kind) {
            (Allocator::ModuleGlobal, _) => format!("{name} is {}", made.made_by()),
            (_, crate::events::Origin::Allocated) => format!("{name} is allocated here: {}", made.made_by()),
            _ => origin_label(&region, "this memory"),
        };
        diag.label(region.origin, label);
    }
}
