//! case: Monte Carlo option pricer with strikes and payoff sums in cudaMallocManaged memory attached to the pricing stream (cudaStreamAttachMemAsync, cudaMemAttachSingle, completed by a stream sync); the host fills and later reads them while only the volatility-surface kernel on another stream, which never touches them, may be running
//! expect: none

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::sys as drv;
use cudarc::runtime::sys as rt;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const MC_SRC: &str = r#"
__device__ float normal(unsigned long long& s) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    float u1 = ((s >> 40) + 1) * (1.0f / 16777217.0f);
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    float u2 = (s >> 40) * (1.0f / 16777216.0f);
    return sqrtf(-2.f * logf(u1)) * cospif(2.f * u2);
}
// One thread per (option, path batch); payoff sums accumulated per option.
extern "C" __global__ void price_paths(const float* strikes, unsigned options, unsigned paths_per_thread,
                                       float s0, float r, float sigma, float t, float* payoff_sums) {
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned opt = blockIdx.y;
    if (opt >= options) return;
    unsigned long long seed = 0x9e3779b97f4a7c15ull * (tid + 1) + opt;
    float k = strikes[opt], acc = 0.f;
    float drift = (r - 0.5f * sigma * sigma) * t, vol = sigma * sqrtf(t);
    for (unsigned p = 0; p < paths_per_thread; ++p) {
        float st = s0 * __expf(drift + vol * normal(seed));
        acc += fmaxf(st - k, 0.f);
    }
    atomicAdd(&payoff_sums[opt], acc);
}

// Smooths the implied-volatility surface (strikes x maturities) for the next pricing round.
extern "C" __global__ void smooth_surface(const float* vol, float* vol_out, unsigned nk, unsigned nt) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y;
    if (i >= nk || j >= nt) return;
    float c = vol[j * nk + i];
    float l = i > 0 ? vol[j * nk + i - 1] : c, r = i + 1 < nk ? vol[j * nk + i + 1] : c;
    vol_out[j * nk + i] = 0.25f * l + 0.5f * c + 0.25f * r;
}
"#;

pub struct Pricer {
    price_stream: rt::cudaStream_t,
    surface_stream: rt::cudaStream_t,
    module: drv::CUmodule,
    price: drv::CUfunction,
    smooth: drv::CUfunction,
}

impl Pricer {
    pub fn new() -> Result<Self> {
        cudarc::runtime::result::device::set(0)?;
        let mut dev = 0;
        let mut ctx = null_mut();
        let (mut module, mut price, mut smooth) = (null_mut(), null_mut(), null_mut());
        let ptx = cudarc::nvrtc::compile_ptx(MC_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let (mut price_stream, mut surface_stream): (rt::cudaStream_t, rt::cudaStream_t) = (null_mut(), null_mut());
        unsafe {
            drv::cuInit(0).result()?;
            drv::cuDeviceGet(&mut dev, 0).result()?;
            drv::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
            drv::cuCtxSetCurrent(ctx).result()?;
            drv::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
            drv::cuModuleGetFunction(&mut price, module, c"price_paths".as_ptr()).result()?;
            drv::cuModuleGetFunction(&mut smooth, module, c"smooth_surface".as_ptr()).result()?;
            rt::cudaStreamCreateWithFlags(&mut price_stream, rt::cudaStreamNonBlocking).result()?;
            rt::cudaStreamCreateWithFlags(&mut surface_stream, rt::cudaStreamNonBlocking).result()?;
        }
        Ok(Self { price_stream, surface_stream, module, price, smooth })
    }

    /// Prices European calls for `strikes_in` while the volatility surface `d_vol`
    /// (nk x nt, device memory) is smoothed into `d_vol_out` on the other stream.
    pub fn price_calls(
        &self,
        strikes_in: &[f32],
        s0: f32,
        r: f32,
        sigma: f32,
        t: f32,
        d_vol: *mut c_void,
        d_vol_out: *mut c_void,
        nk: u32,
        nt: u32,
    ) -> Result<Vec<f32>> {
        let options = strikes_in.len();
        let (mut strikes, mut sums): (*mut c_void, *mut c_void) = (null_mut(), null_mut());
        unsafe {
            rt::cudaMallocManaged(&mut strikes, options * 4, rt::cudaMemAttachGlobal).result()?;
            rt::cudaMallocManaged(&mut sums, options * 4, rt::cudaMemAttachGlobal).result()?;
            // Only the pricing stream's kernels use these two buffers.
            rt::cudaStreamAttachMemAsync(self.price_stream, strikes, 0, rt::cudaMemAttachSingle).result()?;
            rt::cudaStreamAttachMemAsync(self.price_stream, sums, 0, rt::cudaMemAttachSingle).result()?;
            rt::cudaStreamSynchronize(self.price_stream).result()?;
        }

        let (mut v, mut vo, mut nk_, mut nt_) = (d_vol as u64, d_vol_out as u64, nk, nt);
        let mut smooth_args: [*mut c_void; 4] = [
            (&mut v as *mut u64).cast(),
            (&mut vo as *mut u64).cast(),
            (&mut nk_ as *mut u32).cast(),
            (&mut nt_ as *mut u32).cast(),
        ];
        unsafe {
            drv::cuLaunchKernel(self.smooth, nk.div_ceil(128), nt, 1, 128, 1, 1, 0, self.surface_stream.cast(), smooth_args.as_mut_ptr(), null_mut())
                .result()?;
            std::slice::from_raw_parts_mut(strikes.cast::<f32>(), options).copy_from_slice(strikes_in);
            std::slice::from_raw_parts_mut(sums.cast::<f32>(), options).fill(0.0);
        }

        let threads = 256u32 * 64;
        let paths_per_thread = 64u32;
        let (mut k_ptr, mut s_ptr) = (strikes as u64, sums as u64);
        let (mut nopt, mut ppt, mut s0_, mut r_, mut sig, mut t_) = (options as u32, paths_per_thread, s0, r, sigma, t);
        let mut params: [*mut c_void; 8] = [
            (&mut k_ptr as *mut u64).cast(),
            (&mut nopt as *mut u32).cast(),
            (&mut ppt as *mut u32).cast(),
            (&mut s0_ as *mut f32).cast(),
            (&mut r_ as *mut f32).cast(),
            (&mut sig as *mut f32).cast(),
            (&mut t_ as *mut f32).cast(),
            (&mut s_ptr as *mut u64).cast(),
        ];
        let prices = unsafe {
            drv::cuLaunchKernel(self.price, threads / 256, nopt, 1, 256, 1, 1, 0, self.price_stream.cast(), params.as_mut_ptr(), null_mut())
                .result()?;
            rt::cudaStreamSynchronize(self.price_stream).result()?;
            let totals = std::slice::from_raw_parts(sums.cast::<f32>(), options);
            let n_paths = (threads * paths_per_thread) as f32;
            let discount = (-r * t).exp();
            let prices: Vec<f32> = totals.iter().map(|s| discount * s / n_paths).collect();
            rt::cudaFree(strikes).result()?;
            rt::cudaFree(sums).result()?;
            prices
        };
        unsafe { rt::cudaStreamSynchronize(self.surface_stream).result()? };
        Ok(prices)
    }
}

impl Drop for Pricer {
    fn drop(&mut self) {
        unsafe {
            let _ = rt::cudaStreamSynchronize(self.price_stream);
            let _ = rt::cudaStreamSynchronize(self.surface_stream);
            let _ = rt::cudaStreamDestroy(self.price_stream);
            let _ = rt::cudaStreamDestroy(self.surface_stream);
            let _ = drv::cuModuleUnload(self.module);
        }
    }
}
