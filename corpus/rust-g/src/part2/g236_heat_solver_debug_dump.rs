//! case: explicit heat-equation solver on the raw driver API with an opt-in debug dump (HEAT_DEBUG) that, after synchronizing, builds a slice straight over the cuMemAlloc'd temperature field to print its min/max/mean instead of copying it back
//! expect: host_deref_device_ptr=1

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const HEAT_SRC: &str = r#"
extern "C" __global__ void heat_step(const float* t, float* t_next, unsigned nx, unsigned ny, float alpha) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    unsigned c = j * nx + i;
    if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1) { t_next[c] = t[c]; return; }
    t_next[c] = t[c] + alpha * (t[c - 1] + t[c + 1] + t[c - nx] + t[c + nx] - 4.f * t[c]);
}

extern "C" __global__ void hot_spot(float* t, unsigned nx, unsigned ny, float temp) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    float dx = (float)i - nx / 2.f, dy = (float)j - ny / 2.f;
    t[j * nx + i] = (dx * dx + dy * dy < 100.f) ? temp : 0.f;
}
"#;

fn launch(f: sys::CUfunction, nx: u32, ny: u32, stream: sys::CUstream, args: &mut [*mut c_void]) -> Result<()> {
    unsafe {
        sys::cuLaunchKernel(f, nx.div_ceil(16), ny.div_ceil(16), 1, 16, 16, 1, 0, stream, args.as_mut_ptr(), null_mut())
            .result()?;
    }
    Ok(())
}

/// Runs `steps` explicit steps and returns the final field.
pub fn run_heat(nx: u32, ny: u32, steps: usize, alpha: f32) -> Result<Vec<f32>> {
    let mut dev = 0;
    let mut ctx = null_mut();
    let (mut stream, mut module, mut step, mut init) = (null_mut(), null_mut(), null_mut(), null_mut());
    let ptx = cudarc::nvrtc::compile_ptx(HEAT_SRC)?;
    let image = CString::new(ptx.to_src())?;
    let n = (nx * ny) as usize;
    let (mut d_a, mut d_b): (CUdeviceptr, CUdeviceptr) = (0, 0);
    unsafe {
        sys::cuInit(0).result()?;
        sys::cuDeviceGet(&mut dev, 0).result()?;
        sys::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
        sys::cuCtxSetCurrent(ctx).result()?;
        sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
        sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
        sys::cuModuleGetFunction(&mut step, module, c"heat_step".as_ptr()).result()?;
        sys::cuModuleGetFunction(&mut init, module, c"hot_spot".as_ptr()).result()?;
        sys::cuMemAlloc_v2(&mut d_a, n * 4).result()?;
        sys::cuMemAlloc_v2(&mut d_b, n * 4).result()?;
    }
    let (mut nx_, mut ny_, mut temp, mut al) = (nx, ny, 100.0f32, alpha);
    let mut cur = d_a;
    let mut init_args: [*mut c_void; 4] = [
        (&mut cur as *mut u64).cast(),
        (&mut nx_ as *mut u32).cast(),
        (&mut ny_ as *mut u32).cast(),
        (&mut temp as *mut f32).cast(),
    ];
    launch(init, nx, ny, stream, &mut init_args)?;
    let (mut src, mut dst) = (d_a, d_b);
    for _ in 0..steps {
        let mut args: [*mut c_void; 5] = [
            (&mut src as *mut u64).cast(),
            (&mut dst as *mut u64).cast(),
            (&mut nx_ as *mut u32).cast(),
            (&mut ny_ as *mut u32).cast(),
            (&mut al as *mut f32).cast(),
        ];
        launch(step, nx, ny, stream, &mut args)?;
        std::mem::swap(&mut src, &mut dst);
    }
    unsafe { sys::cuStreamSynchronize(stream).result()? };

    if std::env::var_os("HEAT_DEBUG").is_some() {
        let field = unsafe { std::slice::from_raw_parts(src as *const f32, n) }; // EXPECT: host_deref_device_ptr
        let (lo, hi) = field.iter().fold((f32::MAX, f32::MIN), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        let mean = field.iter().sum::<f32>() / n as f32;
        eprintln!("heat: after {steps} steps min={lo} max={hi} mean={mean}");
    }

    let mut out = vec![0f32; n];
    unsafe {
        sys::cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), src, n * 4).result()?;
        sys::cuMemFree_v2(d_a).result()?;
        sys::cuMemFree_v2(d_b).result()?;
        sys::cuModuleUnload(module).result()?;
        sys::cuStreamDestroy_v2(stream).result()?;
    }
    Ok(out)
}
