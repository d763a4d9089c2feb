//! case: beam search with beam scores and back-pointers in managed memory written by the expand kernel; the host seeds the scores before the first launch and, every step, reads them to prune finished beams only after `stream.synchronize()`
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, LaunchConfig, ManagedBuffer, Result};

const BEAM_SRC: &str = r#"
extern "C" __global__ void expand_beams(const float* logprobs, float* scores, int* back, int* tokens,
                                        unsigned beams, unsigned vocab) {
    unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= beams) return;
    const float* row = logprobs + (size_t)b * vocab;
    int best = 0;
    for (unsigned v = 1; v < vocab; ++v) if (row[v] > row[best]) best = v;
    scores[b] += row[best];
    back[b] = b;
    tokens[b] = best;
}
"#;

pub struct Hypothesis {
    pub tokens: Vec<i32>,
    pub score: f32,
}

pub fn beam_search(ctx: &Context, logprobs: &DeviceBuffer<f32>, beams: usize, vocab: usize, steps: usize, length_penalty: f32) -> Result<Vec<Hypothesis>> {
    let stream = ctx.new_stream()?;
    let expand = ctx.load_cuda(BEAM_SRC)?.function("expand_beams")?;
    let mut scores: ManagedBuffer<f32> = ctx.alloc_managed(beams)?;
    let back: ManagedBuffer<i32> = ctx.alloc_managed(beams)?;
    let tokens: ManagedBuffer<i32> = ctx.alloc_managed(beams)?;

    // only the first beam is live at the start
    scores.iter_mut().enumerate().for_each(|(i, s)| *s = if i == 0 { 0.0 } else { f32::NEG_INFINITY });

    let mut hyps: Vec<Hypothesis> = (0..beams).map(|_| Hypothesis { tokens: Vec::new(), score: 0.0 }).collect();
    let mut finished = Vec::new();
    let (b, v) = (beams as u32, vocab as u32);
    for step in 0..steps {
        unsafe { stream.launch(&expand, LaunchConfig::for_num_elems(b), &[logprobs, &scores, &back, &tokens, &b, &v])? };
        stream.synchronize()?;

        for (i, hyp) in hyps.iter_mut().enumerate() {
            hyp.tokens.push(tokens[i]);
            hyp.score = scores[i] / ((step + 1) as f32).powf(length_penalty);
        }
        let (done, live): (Vec<_>, Vec<_>) = hyps.into_iter().partition(|h| h.tokens.last() == Some(&2));
        finished.extend(done);
        hyps = live;
        if hyps.is_empty() {
            break;
        }
    }
    finished.extend(hyps);
    finished.sort_by(|a, b| b.score.total_cmp(&a.score));
    Ok(finished)
}
