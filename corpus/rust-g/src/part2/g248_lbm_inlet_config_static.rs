//! case: D2Q9 lattice-Boltzmann channel flow whose inlet boundary parameters live in a process-wide LazyLock of cuMemAllocManaged memory, read only by the inlet kernel; each step ramps the inlet velocity by writing that struct right after launching the collide-and-stream kernel, which does not use it and may still be running
//! expect: managed_concurrent_access=1

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;
use std::sync::LazyLock;

use cudarc::driver::result;
use cudarc::driver::sys::{self, CUdeviceptr};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const LBM_SRC: &str = r#"
__constant__ int cx[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
__constant__ int cy[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
__constant__ float wt[9] = {4.f/9, 1.f/9, 1.f/9, 1.f/9, 1.f/9, 1.f/36, 1.f/36, 1.f/36, 1.f/36};

struct Inlet { float ux; float rho; unsigned rows_lo; unsigned rows_hi; };

extern "C" __global__ void collide_stream(const float* f, float* f_next, unsigned nx, unsigned ny, float omega) {
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    float rho = 0.f, ux = 0.f, uy = 0.f, fi[9];
    for (int q = 0; q < 9; ++q) { fi[q] = f[(q * ny + y) * nx + x]; rho += fi[q]; ux += fi[q] * cx[q]; uy += fi[q] * cy[q]; }
    ux /= rho; uy /= rho;
    float usq = ux * ux + uy * uy;
    for (int q = 0; q < 9; ++q) {
        float cu = 3.f * (cx[q] * ux + cy[q] * uy);
        float feq = wt[q] * rho * (1.f + cu + 0.5f * cu * cu - 1.5f * usq);
        unsigned xn = (x + cx[q] + nx) % nx, yn = (y + cy[q] + ny) % ny;
        f_next[(q * ny + yn) * nx + xn] = fi[q] - omega * (fi[q] - feq);
    }
}

extern "C" __global__ void inlet_bc(float* f, unsigned nx, unsigned ny, const Inlet* in) {
    unsigned y = blockIdx.x * blockDim.x + threadIdx.x;
    if (y < in->rows_lo || y >= in->rows_hi || y >= ny) return;
    float usq = in->ux * in->ux;
    for (int q = 0; q < 9; ++q) {
        float cu = 3.f * cx[q] * in->ux;
        f[(q * ny + y) * nx] = wt[q] * in->rho * (1.f + cu + 0.5f * cu * cu - 1.5f * usq);
    }
}
"#;

#[repr(C)]
pub struct Inlet {
    pub ux: f32,
    pub rho: f32,
    pub rows_lo: u32,
    pub rows_hi: u32,
}

pub struct ManagedInlet {
    ptr: CUdeviceptr,
}

impl ManagedInlet {
    fn get(&self) -> *mut Inlet {
        self.ptr as *mut Inlet
    }
}

/// Allocated on first use, once the solver has made its context current.
static INLET: LazyLock<ManagedInlet> = LazyLock::new(|| {
    let ptr = unsafe {
        result::malloc_managed(std::mem::size_of::<Inlet>(), sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL)
            .expect("cuMemAllocManaged for the inlet parameters")
    };
    ManagedInlet { ptr }
});

pub struct ChannelFlow {
    stream: sys::CUstream,
    module: sys::CUmodule,
    collide: sys::CUfunction,
    inlet: sys::CUfunction,
    f: [CUdeviceptr; 2],
    nx: u32,
    ny: u32,
    omega: f32,
}

impl ChannelFlow {
    pub fn new(nx: u32, ny: u32, tau: f32, initial_pinned: *const f32) -> Result<Self> {
        result::init()?;
        let dev = result::device::get(0)?;
        unsafe { result::ctx::set_current(result::primary_ctx::retain(dev)?)? };
        let stream = result::stream::create(result::stream::StreamKind::NonBlocking)?;
        let ptx = cudarc::nvrtc::compile_ptx(LBM_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
        let collide = unsafe { result::module::get_function(module, CString::new("collide_stream")?)? };
        let inlet = unsafe { result::module::get_function(module, CString::new("inlet_bc")?)? };
        let bytes = 9 * (nx * ny) as usize * 4;
        let f = unsafe { [result::malloc_sync(bytes)?, result::malloc_sync(bytes)?] };
        unsafe {
            let cfg = &mut *INLET.get();
            *cfg = Inlet { ux: 0.0, rho: 1.0, rows_lo: 1, rows_hi: ny - 1 };
            sys::cuMemcpyHtoDAsync_v2(f[0], initial_pinned.cast(), bytes, stream).result()?;
            result::stream::synchronize(stream)?;
        }
        Ok(Self { stream, module, collide, inlet, f, nx, ny, omega: 1.0 / tau })
    }

    /// Runs `steps` steps, ramping the inlet velocity linearly up to `u_max`.
    pub fn run(&mut self, steps: u32, u_max: f32) -> Result<()> {
        for step in 0..steps {
            let (src, dst) = (self.f[(step % 2) as usize], self.f[((step + 1) % 2) as usize]);
            let (mut s, mut d, mut nx, mut ny, mut om) = (src, dst, self.nx, self.ny, self.omega);
            let mut args: [*mut c_void; 5] = [
                (&mut s as *mut u64).cast(),
                (&mut d as *mut u64).cast(),
                (&mut nx as *mut u32).cast(),
                (&mut ny as *mut u32).cast(),
                (&mut om as *mut f32).cast(),
            ];
            unsafe {
                result::launch_kernel(self.collide, (nx.div_ceil(32), ny.div_ceil(8), 1), (32, 8, 1), 0, self.stream, &mut args)?;
            }

            let ramp = (step as f32 / (steps / 4).max(1) as f32).min(1.0);
            unsafe { (*INLET.get()).ux = u_max * ramp }; // EXPECT: managed_concurrent_access

            let mut cfg = INLET.ptr;
            let mut f_in = dst;
            let mut bc_args: [*mut c_void; 4] = [
                (&mut f_in as *mut u64).cast(),
                (&mut nx as *mut u32).cast(),
                (&mut ny as *mut u32).cast(),
                (&mut cfg as *mut u64).cast(),
            ];
            unsafe {
                result::launch_kernel(self.inlet, (ny.div_ceil(128), 1, 1), (128, 1, 1), 0, self.stream, &mut bc_args)?;
                // The next ramp value is written only once this step has finished.
                result::stream::synchronize(self.stream)?;
            }
        }
        Ok(())
    }
}

impl Drop for ChannelFlow {
    fn drop(&mut self) {
        unsafe {
            let _ = result::stream::synchronize(self.stream);
            let _ = result::free_sync(self.f[0]);
            let _ = result::free_sync(self.f[1]);
            let _ = result::module::unload(self.module);
            let _ = result::stream::destroy(self.stream);
        }
    }
}
