//! `cuda_lint::unread_kernel_output`: fires when device memory a kernel wrote is freed, or left
//! when the program ends, with nothing having read it since.

use super::{Cx, named};
use crate::diagnostic::{Diagnostic, Finding};
use crate::events::Event;
use crate::regions::Loc;
use crate::state::Ext;

declare_lint! {
    /// ### What it does
    /// Checks for memory a kernel wrote that is then freed (`cudaFree`, `cuMemFree`), or
    /// still held when `main` returns, where on every path since that launch nothing may have
    /// read it: no copy out of it, no other kernel given it, no call the analysis cannot see
    /// that was given it.
    ///
    /// ### Why is this bad?
    /// The kernel's result was computed and thrown away; the host most likely reads an old
    /// copy instead: the copy back was left out or made from another buffer. DRACC 012 is this
    /// mistake: the result's `cudaMemcpy` back to the host is missing and the host checks its
    /// own stale array.
    ///
    /// It is allow by default (group `pedantic`): in real code most memory a kernel writes and
    /// nothing reads afterwards is working state, not a result (in rodinia, 12 of 12: a
    /// tree's traversal cursors, BFS frontier masks, solver temporaries). Turn it on
    /// (`-W cuda_lint::unread_kernel_output`) to look for a copy back that was left out.
    ///
    /// ### Known problems
    /// A scratch buffer a kernel writes, and that nothing reads after it, is reported too.
    /// Only a kernel whose source the analysis sees and shows storing through the parameter
    /// (`p[i] = ..`, `p[i] += ..`, an atomic), and an argument that names one allocation, make
    /// output. Output written on some paths only (launches in a loop that may run no round) is
    /// not reported.
    ///
    /// ### Example
    /// ```rust,ignore
    /// // C++: the result is never copied back.
    /// mult<<<blocks, threads>>>(d_a, d_b, d_c);
    /// cudaFree(d_c);
    /// ```
    ///
    /// Use instead:
    /// ```rust,ignore
    /// mult<<<blocks, threads>>>(d_a, d_b, d_c);
    /// cudaMemcpy(c, d_c, bytes, cudaMemcpyDeviceToHost);
    /// cudaFree(d_c);
    /// ```
    pub UNREAD_KERNEL_OUTPUT = "unread_kernel_output", Allow, Pedantic, "device memory a kernel wrote is freed, or left at the program's end, without being read"
}

pub fn check<S: Copy + PartialEq, X: Ext>(event: &Event<'_, S>, cx: &Cx<'_, S, X>, out: &mut Vec<Finding<S>>) {
    let (regions, at_end) = match *event {
        Event::Dealloc { regions, .. } => (regions, false),
        Event::ScopeExit { lost, program_end: true } => (lost, true),
        _ => return,
    };
    let mut seen: Vec<Loc> = Vec::new();
    for l in regions.iter() {
        let root = cx.regions.root(l);
        if seen.contains(&root) {
            continue;
        }
        seen.push(root);
        let Some(&op) = cx.state.unread_output.get(&root) else {
            continue;
        };
        let target = cx.describe.region(root);
        let launch = cx.describe.in_flight(op);
        let name = named(&target.name, "this memory");
        let message = if at_end {
            format!("the program ends and nothing has read {name} since a kernel wrote it")
        } else {
            format!("{name} is freed and nothing has read it since a kernel wrote it")
        };
        let mut diag = Diagnostic::new(message);
        diag.label(launch.span, "the kernel writes it here".to_string());
        diag.via("the output is discarded")
            .note("the kernel's result is thrown away: whatever reads the result on the host reads an old copy")
            .help(format!("copy {name} back (`cudaMemcpy(.., cudaMemcpyDeviceToHost)`) before it is freed"));
        out.push(cx.finding(&UNREAD_KERNEL_OUTPUT, "unread_kernel_output", false, diag));
    }
}
