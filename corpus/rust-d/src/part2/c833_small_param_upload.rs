//! case: an MD step (cudarc `runtime::sys`) uploads its parameter struct from the stack and a 64-entry species table from an array with `cudaMemcpyAsync` (constant sizes far below 64 KiB), while the large position array goes to and from `cudaMallocHost` memory; the host reads positions after `cudaStreamSynchronize`
//! expect: none

use std::ffi::{CString, c_void};
use std::mem::size_of;

use cudarc::driver::result as drv;
use cudarc::driver::sys::{CUfunction, CUstream};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys::{self as rt, cudaMemcpyKind::*, cudaStream_t};

const STEP_SRC: &str = r#"
struct SimParams { float dt; float box_len; unsigned int n; unsigned int n_species; float cutoff; float pad[3]; };
extern "C" __global__ void md_step(float* pos, const unsigned int* species_mass_milli, const SimParams* p) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p->n) return;
    float m = species_mass_milli[i % p->n_species] * 1e-3f;
    for (int d = 0; d < 3; ++d) {
        float x = pos[3 * i + d] + p->dt / m;
        pos[3 * i + d] = x - p->box_len * floorf(x / p->box_len);
    }
}
"#;

#[repr(C)]
#[derive(Clone, Copy)]
struct SimParams {
    dt: f32,
    box_len: f32,
    n: u32,
    n_species: u32,
    cutoff: f32,
    pad: [f32; 3],
}

pub struct MdSystem {
    stream: cudaStream_t,
    step_fn: CUfunction,
    pos_host: *mut f32, // cudaMallocHost
    pos_dev: *mut c_void,
    params_dev: *mut c_void,
    species_dev: *mut c_void,
    n: usize,
}

fn ok(e: rt::cudaError_t) -> Result<(), rt::cudaError_t> {
    if e == rt::cudaError::cudaSuccess { Ok(()) } else { Err(e) }
}

impl MdSystem {
    pub fn new(stream: cudaStream_t, n: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let ptx = CString::new(compile_ptx(STEP_SRC)?.to_src())?;
        let module = unsafe { drv::module::load_data(ptx.as_ptr() as *const c_void)? };
        let step_fn = unsafe { drv::module::get_function(module, CString::new("md_step")?)? };
        let (mut host, mut pos_dev, mut params_dev, mut species_dev) =
            (std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut());
        unsafe {
            ok(rt::cudaMallocHost(&mut host, 3 * n * 4)).map_err(|e| format!("{e:?}"))?;
            ok(rt::cudaMalloc(&mut pos_dev, 3 * n * 4)).map_err(|e| format!("{e:?}"))?;
            ok(rt::cudaMalloc(&mut params_dev, size_of::<SimParams>())).map_err(|e| format!("{e:?}"))?;
            ok(rt::cudaMalloc(&mut species_dev, 64 * 4)).map_err(|e| format!("{e:?}"))?;
        }
        Ok(Self { stream, step_fn, pos_host: host as *mut f32, pos_dev, params_dev, species_dev, n })
    }

    pub fn step(&mut self, dt: f32, box_len: f32, masses: &[u32]) -> Result<f32, rt::cudaError_t> {
        let params = SimParams { dt, box_len, n: self.n as u32, n_species: masses.len().min(64) as u32, cutoff: 2.5, pad: [0.0; 3] };
        let mut species = [1000u32; 64];
        species.iter_mut().zip(masses).for_each(|(s, &m)| *s = m);
        let pos_bytes = 3 * self.n * 4;
        unsafe {
            ok(rt::cudaMemcpyAsync(self.params_dev, &params as *const SimParams as *const c_void, size_of::<SimParams>(), cudaMemcpyHostToDevice, self.stream))?;
            ok(rt::cudaMemcpyAsync(self.species_dev, species.as_ptr() as *const c_void, size_of::<[u32; 64]>(), cudaMemcpyHostToDevice, self.stream))?;
            ok(rt::cudaMemcpyAsync(self.pos_dev, self.pos_host as *const c_void, pos_bytes, cudaMemcpyHostToDevice, self.stream))?;
            let (mut a, mut b, mut c) = (self.pos_dev as u64, self.species_dev as u64, self.params_dev as u64);
            let mut args = [&mut a as *mut u64 as *mut c_void, &mut b as *mut u64 as *mut c_void, &mut c as *mut u64 as *mut c_void];
            let grid = ((self.n as u32).div_ceil(128), 1, 1);
            drv::launch_kernel(self.step_fn, grid, (128, 1, 1), 0, self.stream as CUstream, &mut args)
                .map_err(|_| rt::cudaError::cudaErrorLaunchFailure)?;
            ok(rt::cudaMemcpyAsync(self.pos_host as *mut c_void, self.pos_dev, pos_bytes, cudaMemcpyDeviceToHost, self.stream))?;
            ok(rt::cudaStreamSynchronize(self.stream))?;
        }
        let pos = unsafe { std::slice::from_raw_parts(self.pos_host, 3 * self.n) };
        Ok(pos.iter().step_by(3).copied().fold(0.0, f32::max))
    }
}
