//! case: RLHF step with rewards in managed memory: the policy and value kernels run on two streams, the host fills the rewards only after `barrier` (a `Context::synchronize` helper), launches the advantage kernel that reads them, and reads the managed advantages after the next barrier
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, LaunchConfig, ManagedBuffer, Result};

const RL_SRC: &str = r#"
extern "C" __global__ void policy_logprobs(const float* logits, const int* actions, float* logp,
                                           unsigned vocab, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) logp[i] = logits[(size_t)i * vocab + actions[i]];
}

extern "C" __global__ void value_head(const float* hidden, float* values, unsigned dim, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0.0f;
    for (unsigned k = 0; k < dim; ++k) s += hidden[(size_t)i * dim + k];
    values[i] = s / dim;
}

extern "C" __global__ void advantages(const float* rewards, const float* values, float* adv,
                                      float gamma, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) adv[i] = rewards[i] + (i + 1 < n ? gamma * values[i + 1] : 0.0f) - values[i];
}
"#;

fn barrier(ctx: &Context) -> Result<()> {
    ctx.synchronize()
}

pub struct Rollout<'a> {
    pub logits: &'a DeviceBuffer<f32>,
    pub actions: &'a DeviceBuffer<i32>,
    pub hidden: &'a DeviceBuffer<f32>,
    pub vocab: u32,
    pub dim: u32,
}

pub fn ppo_advantages(ctx: &Context, rollout: &Rollout<'_>, reward_fn: impl Fn(usize) -> f32) -> Result<Vec<f32>> {
    let module = ctx.load_cuda(RL_SRC)?;
    let policy_stream = ctx.new_stream()?;
    let value_stream = ctx.new_stream()?;
    let n = rollout.actions.len() as u32;
    let cfg = LaunchConfig::for_num_elems(n);

    let logp = ctx.alloc::<f32>(n as usize)?;
    let values = ctx.alloc::<f32>(n as usize)?;
    let mut rewards: ManagedBuffer<f32> = ctx.alloc_managed(n as usize)?;
    let adv: ManagedBuffer<f32> = ctx.alloc_managed(n as usize)?;

    unsafe {
        policy_stream.launch(&module.function("policy_logprobs")?, cfg, &[rollout.logits, rollout.actions, &logp, &rollout.vocab, &n])?;
        value_stream.launch(&module.function("value_head")?, cfg, &[rollout.hidden, &values, &rollout.dim, &n])?;
    }

    barrier(ctx)?;
    rewards.iter_mut().enumerate().for_each(|(i, r)| *r = reward_fn(i));

    let gamma = 0.99f32;
    unsafe { value_stream.launch(&module.function("advantages")?, cfg, &[&rewards, &values, &adv, &gamma, &n])? };
    barrier(ctx)?;

    let mean = adv.iter().sum::<f32>() / n.max(1) as f32;
    let std = (adv.iter().map(|a| (a - mean) * (a - mean)).sum::<f32>() / n.max(1) as f32).sqrt().max(1e-6);
    Ok(adv.iter().map(|a| (a - mean) / std).collect())
}
