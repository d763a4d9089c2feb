//! `cuda_lint::unallocated_pointer`: fires when a copy, a memset or a kernel dereferences a
//! pointer that holds no memory on any path (null).

use super::Cx;
use crate::diagnostic::{Diagnostic, Finding};
use crate::events::Event;
use crate::state::Ext;

declare_lint! {
    /// ### What it does
    /// Checks for copies, memsets and kernel launches given a pointer that was never given
    /// memory on any path reaching them: a global or `static` pointer the program never
    /// assigns and whose address it never takes (zero-initialized), a local initialized to
    /// `nullptr`, `NULL` or `0` and not assigned since. A kernel argument counts where the
    /// kernel's source dereferences the parameter and never tests it against null.
    ///
    /// ### Why is this bad?
    /// A copy into or out of a null pointer fails (`cudaErrorInvalidValue`, often unchecked)
    /// and a kernel dereferencing it faults with an illegal address: the allocation was left
    /// out or made into another variable. DRACC 008 is this mistake: the device matrix's
    /// `cudaMalloc` is missing, its copy and kernel are not.
    ///
    /// `cudaFree(nullptr)` and `free(NULL)` do nothing and are not reported; nor is a null
    /// pointer given to a kernel that tests it (an optional argument).
    ///
    /// ### Known problems
    /// A pointer that may be allocated on some path is not reported; nor is one whose address
    /// is handed to code the analysis cannot see, which may allocate it. In Rust, a null
    /// pointer is one the program writes (`0`, `null_mut()`) into a variable, a field of a
    /// struct it builds, or a private `static`, and never changes, borrows mutably or hands on:
    /// a value a struct gets in another method is not followed; nor, in a function of more
    /// than 1,500 basic blocks, is any of this (it costs a read of the whole function).
    ///
    /// ### Example
    /// ```rust,ignore
    /// // C++: d_b is a global nothing allocates.
    /// int *d_b;
    /// cudaMemcpy(d_b, b, bytes, cudaMemcpyHostToDevice);
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// cudaMalloc(&d_b, bytes);
    /// cudaMemcpy(d_b, b, bytes, cudaMemcpyHostToDevice);
    /// ```
    pub UNALLOCATED_POINTER = "unallocated_pointer", Deny, Correctness, "a copy, memset or kernel given a pointer that holds no memory on any path (null)"
}

pub fn check<S: Copy + PartialEq, X: Ext>(event: &Event<'_, S>, cx: &Cx<'_, S, X>, out: &mut Vec<Finding<S>>) {
    let Event::Deref { regions, role, .. } = *event else {
        return;
    };
    if regions.is_empty() || !regions.iter().all(|l| cx.regions.is_null(l)) {
        return;
    }
    let mut diag = Diagnostic::new(format!("{} is a null pointer", role.describe()));
    diag.via("the pointer is used")
        .note("nothing gives this pointer memory on any path that reaches here: the copy fails, or the kernel faults")
        .help("allocate it first (`cudaMalloc`), or pass the buffer that was allocated");
    out.push(cx.finding(&UNALLOCATED_POINTER, "unallocated_pointer", false, diag));
}
