//! case: A/B experiment bucketing service (runtime crate): the traffic split lives in a ManagedBuffer that the bucketing kernel reads; the host rewrites it only after Context::synchronize has waited for every kernel, including the unrelated hashing kernel on the second stream (near-miss)
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

const AB_SRC: &str = r#"
extern "C" __global__ void hash_users(const unsigned long long* users, unsigned n, unsigned* hashes) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) hashes[i] = (unsigned)((users[i] * 0xff51afd7ed558ccdull) >> 32);
}
extern "C" __global__ void assign_bucket(const unsigned* hashes, unsigned n, const unsigned* split,
                                         unsigned arms, unsigned char* arm_of) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned h = hashes[i] % 10000, acc = 0;
    unsigned char a = 0;
    for (unsigned k = 0; k < arms; ++k) { acc += split[k]; if (h < acc) { a = k; break; } }
    arm_of[i] = a;
}
"#;

pub struct Bucketer {
    ctx: Context,
    hash_stream: Stream,
    assign_stream: Stream,
    hash_users: Kernel,
    assign: Kernel,
    /// Basis points per arm, summing to 10000.
    split: ManagedBuffer<u32>,
}

impl Bucketer {
    pub fn new(ctx: &Context, arms: usize) -> Result<Self> {
        let module = ctx.load_cuda(AB_SRC)?;
        let mut split = ctx.alloc_managed::<u32>(arms)?;
        let even = 10_000 / arms as u32;
        split.fill(even);
        split[0] += 10_000 - even * arms as u32;
        Ok(Bucketer {
            ctx: ctx.clone(),
            hash_stream: ctx.new_stream()?,
            assign_stream: ctx.new_stream()?,
            hash_users: module.function("hash_users")?,
            assign: module.function("assign_bucket")?,
            split,
        })
    }

    pub fn bucket(&self, users: &DeviceBuffer<u64>, hashes: &DeviceBuffer<u32>, arm_of: &DeviceBuffer<u8>) -> Result<()> {
        let n = users.len() as u32;
        let arms = self.split.len() as u32;
        let cfg = LaunchConfig::for_num_elems(n);
        unsafe {
            self.hash_stream.launch(&self.hash_users, cfg, &[users, &n, hashes])?;
        }
        let hashed = self.ctx.new_event()?;
        self.hash_stream.record_event(&hashed)?;
        self.assign_stream.wait_event(&hashed)?;
        unsafe {
            self.assign_stream.launch(&self.assign, cfg, &[hashes, &n, &self.split, &arms, arm_of])?;
        }
        Ok(())
    }

    /// Applies a new split from the experiment console.
    pub fn set_split(&mut self, basis_points: &[u32]) -> Result<()> {
        assert_eq!(basis_points.iter().sum::<u32>(), 10_000);
        self.ctx.synchronize()?;
        self.split.copy_from_slice(basis_points);
        Ok(())
    }
}
