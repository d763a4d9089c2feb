//! case: a prover splits work over a compute stream (NTT kernel writing the evaluations) and a copy stream (readback of those evaluations); the readback is enqueued on the copy stream with no event from the compute stream, so it can copy the buffer before the NTT has written it
//! expect: missing_sync=1

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const NTT_SRC: &str = r#"
#define P 0xFFFFFFFF00000001ull
__device__ unsigned long long mulmod(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * b) % P);
}
extern "C" __global__ void ntt_stage(const unsigned long long* in, unsigned long long* out,
                                     const unsigned long long* twiddles, unsigned int half, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n / 2) return;
    unsigned int j = i % half, blk = i / half;
    unsigned long long a = in[blk * 2 * half + j];
    unsigned long long b = mulmod(in[blk * 2 * half + j + half], twiddles[j * (n / (2 * half))]);
    out[blk * 2 * half + j] = (a + b) % P;
    out[blk * 2 * half + j + half] = (a + P - b) % P;
}
"#;

pub struct NttPipeline {
    compute: Stream,
    copy: Stream,
    stage: Kernel,
    twiddles: DeviceBuffer<u64>,
    ping: DeviceBuffer<u64>,
    pong: DeviceBuffer<u64>,
    host_evals: PinnedBuffer<u64>,
    done: Event,
}

impl NttPipeline {
    pub fn new(ctx: &Context, log_n: u32, twiddles: &PinnedBuffer<u64>) -> Result<Self> {
        let n = 1usize << log_n;
        let compute = ctx.new_stream()?;
        let mut tw = ctx.alloc::<u64>(n / 2)?;
        compute.copy_htod(&mut tw, &twiddles[..n / 2])?;
        Ok(Self {
            stage: ctx.load_cuda(NTT_SRC)?.function("ntt_stage")?,
            copy: ctx.new_stream()?,
            compute,
            twiddles: tw,
            ping: ctx.alloc(n)?,
            pong: ctx.alloc(n)?,
            host_evals: ctx.alloc_pinned(n)?,
            done: ctx.new_event()?,
        })
    }

    /// Runs the forward NTT of `coeffs` (already on the device in `ping`) and returns the evaluations.
    pub fn evaluate(&mut self, coeffs: &PinnedBuffer<u64>) -> Result<&[u64]> {
        let n = self.ping.len() as u32;
        unsafe { self.compute.copy_htod_async(&mut self.ping, coeffs)? };
        let cfg = LaunchConfig::for_num_elems(n / 2);
        let mut half = 1u32;
        let mut src_is_ping = true;
        while half < n {
            let (src, dst) = if src_is_ping { (&self.ping, &self.pong) } else { (&self.pong, &self.ping) };
            unsafe { self.compute.launch(&self.stage, cfg, &[src, dst, &self.twiddles, &half, &n])? };
            src_is_ping = !src_is_ping;
            half *= 2;
        }
        let result = if src_is_ping { &self.ping } else { &self.pong };

        // overlap the readback with whatever the compute stream does next
        unsafe { self.copy.copy_dtoh_async(&mut self.host_evals, result)? }; // EXPECT: missing_sync
        self.copy.record_event(&self.done)?;
        self.done.synchronize()?;
        Ok(&self.host_evals)
    }
}
