//! case: particle binning for a sort with cudarc `UnifiedSlice`s: the host fills the keys, a kernel writes bucket ids into a second unified slice passed as a kernel argument (cudarc always records the unified slice's event on the launching stream), and `UnifiedSlice::as_slice` waits on that event before the host counts buckets; no other kernel is running
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, DriverError, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const BIN_SRC: &str = r#"
extern "C" __global__ void assign_buckets(const float* x, unsigned int* bucket, int n, float lo, float inv_width, int nb) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int b = (int)((x[i] - lo) * inv_width);
    bucket[i] = (unsigned int)min(max(b, 0), nb - 1);
}
"#;

pub struct Binning {
    pub counts: Vec<usize>,
    pub offsets: Vec<usize>,
}

pub fn bin_particles(ctx: &Arc<CudaContext>, xs: &[f32], n_buckets: usize) -> Result<Binning, Box<dyn std::error::Error>> {
    let stream = ctx.default_stream();
    let kernel = ctx.load_module(compile_ptx(BIN_SRC)?)?.load_function("assign_buckets")?;
    let n = xs.len();

    let mut keys: UnifiedSlice<f32> = unsafe { ctx.alloc_unified(n, true)? };
    let mut buckets: UnifiedSlice<u32> = unsafe { ctx.alloc_unified(n, true)? };
    keys.as_mut_slice()?.copy_from_slice(xs);

    let (lo, hi) = xs.iter().fold((f32::MAX, f32::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    let inv_width = n_buckets as f32 / (hi - lo).max(f32::EPSILON);
    let (n_i, nb) = (n as i32, n_buckets as i32);
    let mut launch = stream.launch_builder(&kernel);
    launch.arg(&keys).arg(&mut buckets).arg(&n_i).arg(&lo).arg(&inv_width).arg(&nb);
    unsafe { launch.launch(LaunchConfig::for_num_elems(n as u32)) }?;

    let counts = count_buckets(&buckets, n_buckets)?;
    let offsets = counts
        .iter()
        .scan(0usize, |acc, &c| {
            let start = *acc;
            *acc += c;
            Some(start)
        })
        .collect();
    Ok(Binning { counts, offsets })
}

fn count_buckets(buckets: &UnifiedSlice<u32>, n_buckets: usize) -> Result<Vec<usize>, DriverError> {
    let mut counts = vec![0usize; n_buckets];
    // as_slice synchronizes the slice's event, recorded after the kernel that wrote it.
    for &b in buckets.as_slice()? {
        counts[b as usize] += 1;
    }
    Ok(counts)
}
