//! case: model weights that already live in a `Vec` are page-locked in place with `register_host` for the upload and the readback of the scaled copy; each registration is kept until its stream was synchronized, so the copies are pinned and nothing is touched in flight
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, LaunchConfig, Result, Stream};

const SCALE_SRC: &str = r#"
extern "C" __global__ void dequantize(const float* w, float* out, float scale, float zero, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (w[i] - zero) * scale;
}
"#;

pub struct WeightStore {
    ctx: Context,
    stream: Stream,
}

impl WeightStore {
    pub fn new(ctx: &Context) -> Result<Self> {
        Ok(Self { ctx: ctx.clone(), stream: ctx.new_stream()? })
    }

    /// Uploads `weights` through a temporary registration of the Vec's own pages.
    pub fn upload(&self, weights: &mut Vec<f32>) -> Result<DeviceBuffer<f32>> {
        let mut dev = self.ctx.alloc::<f32>(weights.len())?;
        let pinned = self.ctx.register_host(weights.as_mut_slice())?;
        // SAFETY: `pinned` is not written and stays registered until the stream is synchronized.
        unsafe { self.stream.copy_htod_async(&mut dev, &pinned)? };
        self.stream.synchronize()?;
        drop(pinned);
        Ok(dev)
    }

    /// Dequantizes on the device and brings the result back into `out`, also registered.
    pub fn dequantize_into(&self, raw: &DeviceBuffer<f32>, scale: f32, zero: f32, out: &mut [f32]) -> Result<()> {
        let module = self.ctx.load_cuda(SCALE_SRC)?;
        let kernel = module.function("dequantize")?;
        let mut tmp = self.ctx.alloc::<f32>(raw.len())?;
        let n = raw.len() as u32;
        unsafe { self.stream.launch(&kernel, LaunchConfig::for_num_elems(n), &[raw, &mut tmp, &scale, &zero, &n])? };

        let mut host = self.ctx.register_host(out)?;
        unsafe { self.stream.copy_dtoh_async(&mut host, &tmp)? };
        self.stream.synchronize()?;
        let nonzero = host.iter().filter(|v| **v != 0.0).count();
        println!("dequantized {n} weights, {nonzero} non-zero");
        Ok(())
    }
}

pub fn run() -> Result<()> {
    let ctx = Context::new(0)?;
    let store = WeightStore::new(&ctx)?;
    let mut weights: Vec<f32> = (0..1 << 22).map(|i| (i % 255) as f32).collect();
    let dev = store.upload(&mut weights)?;
    weights.iter_mut().for_each(|w| *w = 0.0); // the Vec is ours again: the upload finished
    let mut out = vec![0.0f32; dev.len()];
    store.dequantize_into(&dev, 1.0 / 127.0, 127.0, &mut out)?;
    println!("first {:?}", &out[..4]);
    Ok(())
}
