//! `cuda_lint::copy_out_of_bounds`: fires when a copy or memset of a known byte count is larger
//! than the memory of known size it writes or reads.

use super::{Cx, named, origin_label};
use crate::diagnostic::{Diagnostic, Finding};
use crate::events::{DerefRole, Event};
use crate::regions::Loc;
use crate::state::Ext;

declare_lint! {
    /// ### What it does
    /// Checks for copies and memsets (`cudaMemcpy`, `cudaMemcpyAsync`, `cudaMemset`,
    /// `cuMemcpyHtoD`, `cuMemsetD32` and their kin) whose byte count is known and larger than
    /// the memory they write or read, where that memory's size is known too: a `cudaMalloc`,
    /// `cuMemAlloc`, `malloc`, `new T[n]` of a constant size, an array, a scalar. Counts and
    /// sizes are known when they are built of literals, `#define`d and `const` constants,
    /// `enum` values and `sizeof`.
    ///
    /// ### Why is this bad?
    /// The copy reads or writes past the end of the allocation: on the device, a fault
    /// (`cudaErrorInvalidValue` or an illegal address) or the neighbouring allocation
    /// silently overwritten; on the host, a buffer overflow. DRACC 009, 015 and 016 are
    /// this mistake: a matrix copied into a buffer allocated for a vector, and copies of twice
    /// the array.
    ///
    /// ### Known problems
    /// In C++, only a side named at its start (`d`, `v.data()`, `&x`, an array) is judged;
    /// `d + k` is not (in Rust a constant offset counts: `d + K as u64`). A size or a count
    /// that is not a constant is not judged; nor is memory that may be several allocations of
    /// different sizes, unless every one of them is too small. Two-dimensional copies are not
    /// judged. In Rust a `Vec` is judged by the length it was made with (`vec![x; N]`) until
    /// a call may grow it; in a function of more than 1,500 basic blocks, offsets and whole
    /// slices are not followed (each would cost a read of the whole function at each copy).
    ///
    /// ### Example
    /// ```rust,ignore
    /// // C++: the device buffer holds N floats, the copy is of 2 * N.
    /// cudaMalloc(&d_a, N * sizeof(float));
    /// cudaMemcpy(d_a, h_a, 2 * N * sizeof(float), cudaMemcpyHostToDevice);
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// cudaMemcpy(d_a, h_a, N * sizeof(float), cudaMemcpyHostToDevice);
    /// ```
    pub COPY_OUT_OF_BOUNDS = "copy_out_of_bounds", Deny, Correctness, "a copy or memset larger than the memory it writes or reads, both sizes known"
}

pub fn check<S: Copy + PartialEq, X: Ext>(event: &Event<'_, S>, cx: &Cx<'_, S, X>, out: &mut Vec<Finding<S>>) {
    let Event::Deref {
        regions,
        role,
        bytes: Some(bytes),
    } = *event
    else {
        return;
    };
    if matches!(role, DerefRole::KernelReads | DerefRole::KernelUses) || regions.is_empty() {
        return;
    }
    // Every allocation it may be has a known size, and the largest is too small.
    let mut largest: Option<(Loc, u64)> = None;
    for l in regions.iter() {
        let Some(size) = cx.regions.bytes(l) else {
            return;
        };
        if largest.is_none_or(|(_, s)| size > s) {
            largest = Some((l, size));
        }
    }
    let Some((l, size)) = largest else {
        return;
    };
    if bytes <= size {
        return;
    }
    let target = cx.describe.region(cx.regions.root(l));
    let mut diag = Diagnostic::new(format!(
        "this copies {bytes} bytes, but {} holds {size}",
        role.describe().replacen("this copy", "the copy", 1).replacen("this memset", "the memset", 1)
    ));
    if target.origin != cx.span {
        diag.label(target.origin, origin_label(&target, "this memory"));
    }
    diag.via("the copy is made")
        .note("a copy past the end of an allocation writes or reads memory that is not its own: a fault, or another buffer silently overwritten")
        .help(format!(
            "copy at most {size} bytes, or allocate {} for {bytes}",
            named(&target.name, "the memory")
        ));
    out.push(cx.finding(&COPY_OUT_OF_BOUNDS, "copy_out_of_bounds", false, diag));
}
