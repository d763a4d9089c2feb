//! case: N-body leapfrog step through raw cudart FFI; the per-body kinetic energies are copied into cudaMallocHost memory and the stream is synchronized only inside `if self.verbose`, so on the quiet path the host sums energies the async copy may still be writing
//! expect: missing_sync=1

use std::ffi::{c_int, c_uint, c_void};
use std::ptr::null_mut;

type Stream = *mut c_void;

#[repr(C)]
#[derive(Clone, Copy)]
struct Dim3 {
    x: c_uint,
    y: c_uint,
    z: c_uint,
}

const H2D: c_int = 1;
const D2H: c_int = 2;

unsafe extern "C" {
    fn cudaMalloc(p: *mut *mut c_void, size: usize) -> c_int;
    fn cudaMallocHost(p: *mut *mut c_void, size: usize) -> c_int;
    fn cudaFree(p: *mut c_void) -> c_int;
    fn cudaFreeHost(p: *mut c_void) -> c_int;
    fn cudaStreamCreate(s: *mut Stream) -> c_int;
    fn cudaStreamDestroy(s: Stream) -> c_int;
    fn cudaStreamSynchronize(s: Stream) -> c_int;
    fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, n: usize, kind: c_int, s: Stream) -> c_int;
    fn cudaLaunchKernel(f: *const c_void, g: Dim3, b: Dim3, args: *mut *mut c_void, smem: usize, s: Stream) -> c_int;
    // nvcc host stubs from nbody.cu
    static leapfrog_step: u8;
    static kinetic_energy: u8;
}

fn ok(code: c_int, what: &str) -> Result<(), String> {
    if code == 0 { Ok(()) } else { Err(format!("{what}: cudaError {code}")) }
}

pub struct NBody {
    n: usize,
    stream: Stream,
    d_pos: *mut c_void,
    d_vel: *mut c_void,
    d_mass: *mut c_void,
    d_ke: *mut c_void,
    h_ke: *mut f32,
    pub verbose: bool,
}

impl NBody {
    pub fn new(pos: &[[f32; 4]], vel: &[[f32; 4]], masses: &[f32]) -> Result<Self, String> {
        let n = masses.len();
        let mut s = NBody {
            n,
            stream: null_mut(),
            d_pos: null_mut(),
            d_vel: null_mut(),
            d_mass: null_mut(),
            d_ke: null_mut(),
            h_ke: null_mut(),
            verbose: false,
        };
        unsafe {
            ok(cudaStreamCreate(&mut s.stream), "cudaStreamCreate")?;
            for (p, bytes) in [(&mut s.d_pos, n * 16), (&mut s.d_vel, n * 16), (&mut s.d_mass, n * 4), (&mut s.d_ke, n * 4)] {
                ok(cudaMalloc(p, bytes), "cudaMalloc")?;
            }
            let mut h = null_mut();
            ok(cudaMallocHost(&mut h, n * 4), "cudaMallocHost")?;
            s.h_ke = h.cast();
        }
        s.upload_initial(pos, vel, masses)?;
        Ok(s)
    }

    fn upload_initial(&mut self, pos: &[[f32; 4]], vel: &[[f32; 4]], masses: &[f32]) -> Result<(), String> {
        // Stage the initial conditions through a temporary pinned buffer, one array at a time.
        let bytes = self.n * 16;
        let mut staging = null_mut();
        unsafe {
            ok(cudaMallocHost(&mut staging, bytes), "cudaMallocHost")?;
            let st = std::slice::from_raw_parts_mut(staging as *mut [f32; 4], self.n);
            st.copy_from_slice(pos);
            ok(cudaMemcpyAsync(self.d_pos, staging, bytes, H2D, self.stream), "pos")?;
            ok(cudaStreamSynchronize(self.stream), "sync")?;
            st.copy_from_slice(vel);
            ok(cudaMemcpyAsync(self.d_vel, staging, bytes, H2D, self.stream), "vel")?;
            ok(cudaStreamSynchronize(self.stream), "sync")?;
            let sm = std::slice::from_raw_parts_mut(staging as *mut f32, self.n);
            sm.copy_from_slice(masses);
            ok(cudaMemcpyAsync(self.d_mass, staging, self.n * 4, H2D, self.stream), "mass")?;
            ok(cudaStreamSynchronize(self.stream), "sync")?;
            ok(cudaFreeHost(staging), "cudaFreeHost")?;
        }
        Ok(())
    }

    /// Advances one step and returns the total kinetic energy.
    pub fn step(&mut self, dt: f32) -> Result<f32, String> {
        let grid = Dim3 { x: (self.n as u32).div_ceil(128), y: 1, z: 1 };
        let block = Dim3 { x: 128, y: 1, z: 1 };
        let mut n = self.n as c_int;
        let mut dt = dt;
        unsafe {
            let mut step_args = [
                (&mut self.d_pos) as *mut _ as *mut c_void,
                (&mut self.d_vel) as *mut _ as *mut c_void,
                (&mut self.d_mass) as *mut _ as *mut c_void,
                (&mut dt) as *mut f32 as *mut c_void,
                (&mut n) as *mut c_int as *mut c_void,
            ];
            ok(cudaLaunchKernel(&raw const leapfrog_step as *const c_void, grid, block, step_args.as_mut_ptr(), 0, self.stream), "leapfrog")?;
            let mut ke_args = [
                (&mut self.d_vel) as *mut _ as *mut c_void,
                (&mut self.d_mass) as *mut _ as *mut c_void,
                (&mut self.d_ke) as *mut _ as *mut c_void,
                (&mut n) as *mut c_int as *mut c_void,
            ];
            ok(cudaLaunchKernel(&raw const kinetic_energy as *const c_void, grid, block, ke_args.as_mut_ptr(), 0, self.stream), "ke")?;
            ok(cudaMemcpyAsync(self.h_ke.cast(), self.d_ke, self.n * 4, D2H, self.stream), "ke readback")?;
        }
        if self.verbose {
            unsafe { ok(cudaStreamSynchronize(self.stream), "sync")? };
            eprintln!("step done, dt = {dt}");
        }
        let total: f32 = unsafe { std::slice::from_raw_parts(self.h_ke, self.n) }.iter().sum(); // EXPECT: missing_sync
        Ok(total)
    }
}

impl Drop for NBody {
    fn drop(&mut self) {
        unsafe {
            cudaStreamSynchronize(self.stream);
            cudaFree(self.d_pos);
            cudaFree(self.d_vel);
            cudaFree(self.d_mass);
            cudaFree(self.d_ke);
            cudaFreeHost(self.h_ke.cast());
            cudaStreamDestroy(self.stream);
        }
    }
}
