//! case: a worker thread owning its own stream refreshes a lookup table through VMM alias A while the main thread's stream gathers through alias B; nothing orders the two streams before the join
//! expect: unfenced_vmm_alias=1
use std::sync::Arc;
use std::thread;

use cuda_lint_runtime::{Context, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, VirtualRange};

const LUT_SRC: &str = r#"
extern "C" __global__ void refresh_lut(float* lut, unsigned n, float gamma) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) lut[i] = powf((float)i / (float)n, gamma);
}
extern "C" __global__ void apply_lut(const float* lut, const unsigned* pixels, float* out, unsigned n, unsigned lut_n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = lut[pixels[i] % lut_n];
}
"#;

struct SharedLut {
    writer_view: Mapping,
    reader_view: Mapping,
    len: u32,
}

fn shared_lut(ctx: &Context, len: u32) -> Result<SharedLut> {
    let gran = ctx.vmm_granularity()?;
    let size = (len as usize * 4).div_ceil(gran) * gran;
    let phys = PhysicalAllocation::new(ctx, size)?;
    Ok(SharedLut {
        writer_view: VirtualRange::reserve(ctx, size)?.map(&phys, 0)?,
        reader_view: VirtualRange::reserve(ctx, size)?.map(&phys, 0)?,
        len,
    })
}

pub fn run() -> Result<()> {
    let ctx = Context::new(0)?;
    let module = ctx.load_cuda(LUT_SRC)?;
    let refresh: Kernel = module.function("refresh_lut")?;
    let apply: Kernel = module.function("apply_lut")?;
    let lut = Arc::new(shared_lut(&ctx, 4096)?);

    let worker = {
        let (ctx, lut) = (ctx.clone(), Arc::clone(&lut));
        thread::spawn(move || -> Result<()> {
            let s = ctx.new_stream()?;
            let gamma = 2.2f32;
            unsafe { s.launch(&refresh, LaunchConfig::for_num_elems(lut.len), &[&lut.writer_view, &lut.len, &gamma])? };
            s.synchronize()
        })
    };

    let main_stream = ctx.new_stream()?;
    let n = 1u32 << 20;
    let mut pixels = ctx.alloc::<u32>(n as usize)?;
    main_stream.memset_d32_async(&mut pixels, 17)?;
    let mut out = ctx.alloc::<f32>(n as usize)?;
    unsafe {
        main_stream.launch(&apply, LaunchConfig::for_num_elems(n), &[&lut.reader_view, &pixels, &mut out, &n, &lut.len])?; // EXPECT: unfenced_vmm_alias
    }
    worker.join().expect("worker panicked")?;
    main_stream.synchronize()?;
    Ok(())
}
