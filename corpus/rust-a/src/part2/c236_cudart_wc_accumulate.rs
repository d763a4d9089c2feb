//! case: a cudaHostAlloc(cudaHostAllocWriteCombined) histogram that the host updates with += (a read-modify-write) before uploading it
//! expect: write_combined_host_read=1
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::runtime::sys;

pub struct HostHistogram {
    bins: *mut u32,
    nbins: usize,
}

impl HostHistogram {
    pub fn new(nbins: usize) -> Option<HostHistogram> {
        let mut p: *mut c_void = null_mut();
        let e = unsafe { sys::cudaHostAlloc(&mut p, nbins * 4, sys::cudaHostAllocWriteCombined) };
        if e != sys::cudaError_t::cudaSuccess {
            return None;
        }
        unsafe { std::ptr::write_bytes(p as *mut u32, 0, nbins) };
        Some(HostHistogram { bins: p as *mut u32, nbins })
    }

    pub fn add_samples(&mut self, samples: &[f32]) {
        let bins = unsafe { std::slice::from_raw_parts_mut(self.bins, self.nbins) };
        let n = self.nbins;
        samples.iter().map(|s| ((s.clamp(0.0, 0.999)) * n as f32) as usize).for_each(|b| bins[b] += 1); // EXPECT: write_combined_host_read
    }

    pub fn upload(&self, dev: *mut c_void, stream: sys::cudaStream_t) -> sys::cudaError_t {
        unsafe { sys::cudaMemcpyAsync(dev, self.bins as *const c_void, self.nbins * 4, sys::cudaMemcpyKind::cudaMemcpyHostToDevice, stream) }
    }
}

impl Drop for HostHistogram {
    fn drop(&mut self) {
        unsafe { let _ = sys::cudaFreeHost(self.bins as *mut c_void); }
    }
}

pub fn run() {
    let Some(mut h) = HostHistogram::new(64) else { return };
    let samples: Vec<f32> = (0..10_000).map(|i| ((i * 37) % 1000) as f32 / 1000.0).collect();
    h.add_samples(&samples);
    let mut dev: *mut c_void = null_mut();
    unsafe {
        if sys::cudaMalloc(&mut dev, 64 * 4) == sys::cudaError_t::cudaSuccess {
            let s: sys::cudaStream_t = null_mut();
            h.upload(dev, s);
            sys::cudaStreamSynchronize(s);
            sys::cudaFree(dev);
        }
    }
}
