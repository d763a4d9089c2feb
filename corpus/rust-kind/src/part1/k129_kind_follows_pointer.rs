//! case: a CPU/GPU-switchable smoother picks its output buffer and the matching kind together (device buffer with HostToDevice, or a host Vec with HostToHost) in one branch, so each path's kind agrees with its destination.
//! expect: none
use cudarc::runtime::sys;
use std::ffi::c_void;

pub enum Backend {
    Cpu,
    Gpu,
}

pub struct Smoother {
    pub backend: Backend,
    pub host_work: Vec<f32>,
    pub dev_work: *mut c_void,
}

pub fn new_smoother(backend: Backend, n: usize) -> Smoother {
    let mut dev_work: *mut c_void = std::ptr::null_mut();
    if let Backend::Gpu = backend {
        unsafe {
            sys::cudaMalloc(&mut dev_work, n * 4);
        }
    }
    Smoother { backend, host_work: vec![0.0; n], dev_work }
}

pub fn load_input(s: &mut Smoother, input: &[f32]) {
    let n = input.len().min(s.host_work.len());
    let (dst, kind) = match s.backend {
        Backend::Gpu => (s.dev_work, sys::cudaMemcpyKind::cudaMemcpyHostToDevice),
        Backend::Cpu => (s.host_work.as_mut_ptr() as *mut c_void, sys::cudaMemcpyKind::cudaMemcpyHostToHost),
    };
    unsafe {
        sys::cudaMemcpy(dst, input.as_ptr() as *const c_void, n * 4, kind);
    }
}

pub fn smooth_cpu(s: &mut Smoother, passes: usize) {
    for _ in 0..passes {
        let prev = s.host_work.clone();
        for i in 1..prev.len().saturating_sub(1) {
            s.host_work[i] = 0.25 * prev[i - 1] + 0.5 * prev[i] + 0.25 * prev[i + 1];
        }
    }
}
