//! case: an n-body step written on cudarc's `driver::result` layer keeps velocities in `malloc_sync` device memory; the energy diagnostic views that device pointer as a host slice (after a synchronize, which does not make it host memory)
//! expect: host_deref_device_ptr=1
use std::ffi::{c_void, CString};

use cudarc::driver::{result, sys};
use cudarc::nvrtc::compile_ptx;

const STEP_SRC: &str = r#"
extern "C" __global__ void kick(float* vel, const float* acc, float dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) vel[i] += acc[i] * dt;
}
"#;

pub struct NBody {
    stream: sys::CUstream,
    kick: sys::CUfunction,
    d_vel: sys::CUdeviceptr,
    d_acc: sys::CUdeviceptr,
    n: usize,
}

impl NBody {
    pub fn new(initial_vel: &[f32]) -> Result<Self, Box<dyn std::error::Error>> {
        result::init()?;
        let dev = result::device::get(0)?;
        let ctx = unsafe { result::primary_ctx::retain(dev)? };
        unsafe { result::ctx::set_current(ctx)? };
        let ptx = compile_ptx(STEP_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let module = unsafe { result::module::load_data(image.as_ptr() as *const c_void)? };
        let kick = unsafe { result::module::get_function(module, CString::new("kick")?)? };
        let stream = result::stream::create(result::stream::StreamKind::NonBlocking)?;
        let n = initial_vel.len();
        let bytes = n * std::mem::size_of::<f32>();
        let d_vel = unsafe { result::malloc_sync(bytes)? };
        let d_acc = unsafe { result::malloc_sync(bytes)? };
        unsafe {
            result::memcpy_htod_sync(d_vel, initial_vel)?;
            result::memset_d8_sync(d_acc, 0, bytes)?;
        }
        Ok(Self { stream, kick, d_vel, d_acc, n })
    }

    pub fn step(&mut self, dt: f32) -> Result<(), result::DriverError> {
        let n = self.n as i32;
        let mut params: [*mut c_void; 4] = [
            &mut self.d_vel as *mut _ as *mut c_void,
            &mut self.d_acc as *mut _ as *mut c_void,
            &dt as *const f32 as *mut c_void,
            &n as *const i32 as *mut c_void,
        ];
        let blocks = (self.n as u32).div_ceil(256);
        unsafe { result::launch_kernel(self.kick, (blocks, 1, 1), (256, 1, 1), 0, self.stream, &mut params) }
    }

    /// Kinetic energy for the log line every 100 steps (unit masses).
    pub fn kinetic_energy(&self) -> Result<f64, result::DriverError> {
        unsafe { result::stream::synchronize(self.stream)? };
        let ke = unsafe { std::slice::from_raw_parts(self.d_vel as *const f32, self.n) }.iter().map(|&v| 0.5 * (v as f64) * (v as f64)).sum(); // EXPECT: host_deref_device_ptr
        Ok(ke)
    }
}
