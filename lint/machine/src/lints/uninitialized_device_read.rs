//! `cuda_lint::uninitialized_device_read`: fires when a copy or a kernel reads device memory
//! nothing wrote since it was allocated, on any path.

use super::{Cx, named, origin_label};
use crate::diagnostic::{Diagnostic, Finding};
use crate::events::Event;
use crate::state::Ext;

declare_lint! {
    /// ### What it does
    /// Checks for device memory read before anything wrote it: a copy out of it, or a kernel
    /// given it for a parameter the kernel's source only loads through, where on every path
    /// since its allocation (`cudaMalloc`, `cudaMallocAsync`, `cudaMallocPitch`, `cuMemAlloc`)
    /// nothing may have written it: no copy or memset into it, no kernel that may write
    /// through it, no call the analysis cannot see that was given it.
    ///
    /// ### Why is this bad?
    /// `cudaMalloc`'s memory "is not cleared": the read gets whatever the allocation held
    /// before, often zeros on a fresh device and garbage after the allocator reused memory.
    /// The upload was left out or made into another buffer. DRACC 010 is this mistake: the
    /// matrix's copy to the device is missing and the kernel reads it anyway.
    ///
    /// ### Known problems
    /// A kernel that both reads and writes a buffer (`c[i] += ..`) may write it first and is
    /// not reported. Memory written on some path only is taken as written. A write of part of
    /// the memory counts as a write of all of it. A read in a loop whose later part writes the
    /// memory is not reported: the first round, which reads what nothing wrote, is not told
    /// apart from the rounds after it. Memory written by an operation anywhere in the program
    /// (even after the read) is not reported either.
    ///
    /// ### Example
    /// ```rust,ignore
    /// // C++: d_b is allocated and read by the kernel, never uploaded.
    /// cudaMalloc(&d_b, bytes);
    /// mult<<<blocks, threads>>>(d_a, d_b, d_c);
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// cudaMalloc(&d_b, bytes);
    /// cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice);
    /// mult<<<blocks, threads>>>(d_a, d_b, d_c);
    /// ```
    pub UNINITIALIZED_DEVICE_READ = "uninitialized_device_read", Warn, Correctness, "a copy or kernel reads device memory nothing wrote since it was allocated"
}

pub fn check<S: Copy + PartialEq, X: Ext>(event: &Event<'_, S>, cx: &Cx<'_, S, X>, out: &mut Vec<Finding<S>>) {
    let Event::Deref { regions, role, .. } = *event else {
        return;
    };
    if !role.reads() || regions.is_empty() {
        return;
    }
    // Every allocation it may be is unwritten.
    let roots: Vec<_> = regions.iter().map(|l| cx.regions.root(l)).collect();
    if !roots.iter().all(|&r| cx.state.unwritten_must.contains(r)) {
        return;
    }
    // Written on another path (`if (warm) cudaMemcpy(d_guess, ..)`, a kernel that reads it
    // under the same condition): an operation of the program writes it somewhere.
    let written_elsewhere = (0..cx.machine.len()).any(|i| {
        let op = cx.machine.op(crate::ops::OpId(i as u32));
        op.writes.iter().any(|w| roots.contains(&cx.regions.root(w)))
    });
    if written_elsewhere {
        return;
    }
    let target = cx.describe.region(roots[0]);
    let mut diag = Diagnostic::new(format!(
        "{} is device memory nothing has written since it was allocated",
        role.describe()
    ));
    if target.origin != cx.span {
        diag.label(target.origin, origin_label(&target, "this memory"));
    }
    diag.via("it is read")
        .note("device memory from `cudaMalloc` is not cleared: this reads whatever it held before")
        .help(format!(
            "copy the data into {} first (or `cudaMemset` it), or pass the buffer that holds it",
            named(&target.name, "it")
        ));
    out.push(cx.finding(&UNINITIALIZED_DEVICE_READ, "uninitialized_device_read", false, diag));
}
