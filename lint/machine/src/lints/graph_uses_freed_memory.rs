//! `cuda_lint::graph_uses_freed_memory`: fires at a graph launch whose captured work uses memory
//! freed, on every path to the launch, since it was allocated. The front end says what the
//! graph's work uses (`Event::GraphLaunch`); the machine, what was freed (`State::freed_must`).

use super::Cx;
use crate::diagnostic::{Diagnostic, Finding};
use crate::events::Event;
use crate::state::Ext;

declare_lint! {
    /// ### What it does
    /// Checks for a CUDA graph launched (`cudaGraphLaunch`, `cuGraphLaunch`, cudarc's
    /// `CudaGraph::launch`) after memory that the work captured into it reads or writes was
    /// freed: `cudaFree`, `cudaFreeAsync`, `cudaFreeHost`, `cuMemFree`, `free`, `delete[]`, a
    /// destructor that releases it, in Rust a `CudaSlice` or pinned buffer dropped. Memory a
    /// capture allocates and frees itself (`cudaMallocAsync`/`cudaFreeAsync` on the capturing
    /// stream: graph memory nodes) is the graph's.
    ///
    /// ### Why is this bad?
    /// Capture records addresses, not data: each launch of the graph runs the captured kernels
    /// and copies again, on the memory they named when they were captured, host memory
    /// included. Once that memory is freed the launch reads and writes memory that belongs to
    /// someone else, or to no one: corrupted results or a fault, far from the free
    /// (onnxruntime #32121: a pinned staging buffer recycled while a graph node still used it;
    /// candle: buffers dropped while a captured graph could still run).
    ///
    /// ### Known problems
    /// Memory freed on some paths only is not reported, nor memory freed and allocated again
    /// at the same call in a loop (one allocation to the analysis). A local array or
    /// `std::vector` whose scope has ended (a helper that captured a copy from its own stack and
    /// returned the graph) is not taken as freed. Graphs built node by node
    /// (`cudaGraphAddKernelNode`) and graphs updated in place (`cudaGraphExecUpdate`) are not
    /// followed.
    ///
    /// ### Example
    /// ```cpp
    /// cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    /// scale<<<blocks, threads, 0, s>>>(d_x, n);
    /// cudaStreamEndCapture(s, &graph);
    /// cudaGraphInstantiate(&exec, graph, 0);
    /// cudaFree(d_x);
    /// cudaGraphLaunch(exec, s);
    /// ```
    ///
    /// Use instead:
    /// ```cpp
    /// cudaGraphLaunch(exec, s);
    /// cudaStreamSynchronize(s);
    /// cudaGraphExecDestroy(exec);
    /// cudaFree(d_x);
    /// ```
    pub GRAPH_USES_FREED_MEMORY = "graph_uses_freed_memory", Deny, Correctness, "a CUDA graph launched after memory its captured work uses was freed"
}

pub fn check<S: Copy + PartialEq, X: Ext>(event: &Event<'_, S>, cx: &Cx<'_, S, X>, out: &mut Vec<Finding<S>>) {
    let Event::GraphLaunch { slots, captured } = *event else {
        return;
    };
    // Evidence: an argument of the captured work whose every possible value was freed (one that
    // may also be live memory, a field assigned through a reference, is no evidence).
    let Some(root) = slots.iter().find_map(|slot| {
        let roots: Vec<_> = slot.iter().map(|l| cx.regions.root(l)).collect();
        (!roots.is_empty() && roots.iter().all(|r| cx.state.freed_must.contains(*r))).then(|| roots[0])
    }) else {
        return;
    };
    let region = cx.describe.region(root);
    let name = super::named(&region.name, "memory");
    let mut diag = Diagnostic::new(format!("graph launch uses {name}, which was freed before it"));
    if let Some(at) = captured {
        diag.label(at, "the graph's work was captured here".to_string());
    }
    diag.note(
        "a graph records addresses, not data: each launch runs its captured work again on the memory it \
         named when it was captured",
    );
    diag.help(format!(
        "free {name} only after the graph's last launch has finished (synchronize the launch stream), \
         or capture the graph again on memory that lives"
    ));
    out.push(cx.finding(&GRAPH_USES_FREED_MEMORY, "graph_uses_freed_memory", false, diag));
}
