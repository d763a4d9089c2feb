//! case: zero-copy: a kernel writes device-mapped pinned memory through its mapped device address; the host reads the pinned buffer after synchronizing and only prints the device address
//! expect: none
use cuda_lint_runtime::{Context, LaunchConfig, PinnedFlags, Result};

const FLAG_SRC: &str = r#"
extern "C" __global__ void mark(unsigned* flags, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) flags[i] = i % 3 == 0;
}
"#;

pub fn marked(ctx: &Context, n: usize) -> Result<usize> {
    let stream = ctx.new_stream()?;
    let mark = ctx.load_cuda(FLAG_SRC)?.function("mark")?;
    let flags = PinnedFlags { device_mapped: true, ..PinnedFlags::default() };
    let host = ctx.alloc_pinned_with_flags::<u32>(n, flags)?;
    let mapped = host.mapped_device_ptr()?;
    println!("zero-copy buffer mapped at {mapped}");
    let len = n as u32;
    // SAFETY: mark(unsigned*, unsigned) over the n mapped words.
    unsafe { stream.launch(&mark, LaunchConfig::for_num_elems(len), &[&mapped, &len])? };
    stream.synchronize()?;
    Ok(host.iter().filter(|&&f| f != 0).count())
}
