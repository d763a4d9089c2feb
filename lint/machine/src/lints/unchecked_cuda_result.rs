//! `cuda_lint::unchecked_cuda_result` (C++; Rust's `#[must_use]` covers its results): fires
//! - at a CUDA runtime or driver API call written as a statement of its own, its status dropped;
//! - at a kernel launch after which its function reaches a synchronizing call with no
//!   `cudaGetLastError`/`cudaPeekAtLastError` in between.
//!
//! What counts as checked is the front end's to say (`Event::StatusDropped`,
//! `Event::LaunchUnchecked`): a call given to a function or macro, a cast to `void`, a helper or
//! macro whose name says it checks errors, a return before any synchronization.

use super::Cx;
use crate::diagnostic::{Child, Diagnostic, Finding};
use crate::events::Event;
use crate::state::Ext;

declare_lint! {
    /// ### What it does
    /// Checks CUDA C++ host code for results nobody looks at:
    /// - a call of the CUDA runtime or driver API (`cudaMemcpy`, `cudaFree`, `cuMemAlloc`, ...)
    ///   written as a statement of its own, its `cudaError_t`/`CUresult` dropped;
    /// - a kernel launch (`kernel<<<grid, block>>>(..)`) after which the function reaches a
    ///   synchronizing call (`cudaDeviceSynchronize`, `cudaStreamSynchronize`,
    ///   `cudaEventSynchronize`, a blocking `cudaMemcpy`) with no `cudaGetLastError()` or
    ///   `cudaPeekAtLastError()` in between.
    ///
    /// Not reported: a status assigned, compared, returned or given to a function or macro
    /// (`CUDA_CHECK(cudaMalloc(&p, n))`); one discarded on purpose (`(void)cudaFree(p)`);
    /// `cudaGetLastError()` alone; a launch followed by a call of the file's function that reads
    /// the error state, or of a function or macro the file does not show whose name says it
    /// checks (`check`/`err` in it: `getLastCudaError("k")`); a launch whose function returns
    /// before synchronizing (its caller may check).
    ///
    /// ### Why is this bad?
    /// CUDA's errors are sticky and asynchronous. A launch with a bad configuration fails
    /// without a word: only `cudaGetLastError` reports it, and the next synchronization returns
    /// success. A fault inside a kernel surfaces at some later call, whose dropped status loses
    /// it, and the program goes on with stale or garbage data. It is the first rule of the
    /// commercial CUDA checkers (Axivion CUDA-1.3, Coverity `CUDA.ERROR_INTERFACE` and
    /// `CUDA.ERROR_KERNEL_LAUNCH`).
    ///
    /// It is in `pedantic` (allow by default): much correct code drops the status of cleanup
    /// calls on purpose. Turn it on with `-W cuda_lint::unchecked_cuda_result`. Where the file
    /// defines a macro that checks statuses (its body compares with `cudaSuccess` or prints
    /// `cudaGetErrorString`), `cuda-lint check --fix` wraps each dropped call in it.
    ///
    /// ### Known problems
    /// C++ only: in Rust the bindings' and cudarc's results are `#[must_use]`. The way from the
    /// launch to the synchronization is read in the order of the source, not along each path: a
    /// check in another branch counts. A call through a function pointer or a macro that
    /// checks but says nothing of it in its name hides what it does.
    ///
    /// ### Example
    /// ```cpp
    /// cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
    /// scale<<<blocks, threads>>>(d, n);
    /// cudaDeviceSynchronize();
    /// ```
    ///
    /// Use instead:
    /// ```cpp
    /// CUDA_CHECK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    /// scale<<<blocks, threads>>>(d, n);
    /// CUDA_CHECK(cudaGetLastError());
    /// CUDA_CHECK(cudaDeviceSynchronize());
    /// ```
    pub UNCHECKED_CUDA_RESULT = "unchecked_cuda_result", Allow, Pedantic, "a CUDA call's status dropped, or a kernel launch never checked with cudaGetLastError"
}

pub fn check<S: Copy + PartialEq, X: Ext>(event: &Event<'_, S>, cx: &Cx<'_, S, X>, out: &mut Vec<Finding<S>>) {
    match *event {
        Event::StatusDropped { call, check } => {
            let mut diag = Diagnostic::new(format!("the status `{call}` returns is dropped"));
            diag.note("a failed CUDA call leaves its error to be found by a later call, far from its cause");
            match check {
                // The wrapping is mechanical: `cuda-lint check --fix` applies it.
                Some(m) => diag.children.push(Child::Wrap {
                    with: m.to_string(),
                    help: format!("check it with this file's `{m}(..)`, or discard it explicitly: `(void){call}(..)`"),
                }),
                None => {
                    diag.help(format!(
                        "compare it with `cudaSuccess` (or `CUDA_SUCCESS`), or discard it explicitly: `(void){call}(..)`"
                    ));
                }
            }
            out.push(cx.finding(&UNCHECKED_CUDA_RESULT, "unchecked_cuda_result", false, diag));
        }
        Event::LaunchUnchecked { sync, sync_at, check } => {
            let mut diag = Diagnostic::new("kernel launch not checked with `cudaGetLastError` before the next synchronization".to_string());
            diag.label(sync_at, format!("`{sync}` synchronizes here"));
            diag.note(
                "a launch with a bad configuration fails without a word: only `cudaGetLastError` or \
                 `cudaPeekAtLastError` report it, and the synchronization after it returns success",
            );
            match check {
                Some(m) => diag.help(format!("check it right after the launch: `{m}(cudaGetLastError());`")),
                None => diag.help("check it right after the launch: `cudaGetLastError()` against `cudaSuccess`".to_string()),
            };
            out.push(cx.finding(&UNCHECKED_CUDA_RESULT, "unchecked_cuda_result", false, diag));
        }
        _ => {}
    }
}
