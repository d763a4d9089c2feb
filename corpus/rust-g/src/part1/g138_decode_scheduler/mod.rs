//! case: continuous-batching decode scheduler: each step launches the argmax kernel and copies the next tokens into pinned memory; the normal path synchronizes the stream before the sequence state machine consumes the tokens, but the drain path (shutdown requested) returns a copy of the pinned tokens straight after enqueueing the copy
//! expect: missing_sync=1

mod policy;
mod scheduler;

pub use policy::SeqState;
pub use scheduler::DecodeScheduler;

pub const ARGMAX_SRC: &str = r#"
extern "C" __global__ void argmax_rows(const float* logits, int* next, unsigned vocab, unsigned batch) {
    unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch) return;
    const float* row = logits + (size_t)b * vocab;
    int best = 0;
    for (unsigned v = 1; v < vocab; ++v) if (row[v] > row[best]) best = v;
    next[b] = best;
}
"#;

pub fn run(ctx: &cuda_lint_runtime::Context, logits: cuda_lint_runtime::DeviceBuffer<f32>, vocab: usize, budgets: &[u32]) -> cuda_lint_runtime::Result<Vec<Vec<i32>>> {
    let mut sched = DecodeScheduler::new(ctx, logits, vocab, budgets)?;
    let mut steps = 0;
    while sched.has_running() && steps < 4096 {
        sched.step()?;
        steps += 1;
        if steps == 1024 {
            sched.request_drain();
        }
    }
    Ok(sched.outputs())
}
