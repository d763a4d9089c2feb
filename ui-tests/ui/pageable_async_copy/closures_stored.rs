// A closure stored to run later (`Box::new(move || ..)`, a release recorded at allocation time)
// does not run where it is made: the memory it would unregister stays page-locked until then.
use std::ffi::c_void;

use cudarc::driver::sys;

struct Ledger {
    releases: Vec<Box<dyn FnOnce()>>,
}

impl Ledger {
    fn register(&mut self, mut v: Vec<u64>) -> *mut u64 {
        let p = v.as_mut_ptr();
        unsafe { sys::cuMemHostRegister_v2(p.cast(), v.len() * 8, 0) };
        self.releases.push(Box::new(move || unsafe {
            sys::cuMemHostUnregister(v.as_mut_ptr().cast());
        }));
        p
    }
}

fn ok_registered_until_the_ledger_releases_it(coeffs: Vec<u64>, dev: sys::CUdeviceptr, stream: sys::CUstream) {
    let n = coeffs.len();
    let mut ledger = Ledger { releases: Vec::new() };
    let host = ledger.register(coeffs);
    unsafe {
        sys::cuMemcpyHtoDAsync_v2(dev, host.cast::<c_void>(), n * 8, stream);
        sys::cuStreamSynchronize(stream);
    }
}

fn fires_unregistered_by_a_closure_called_at_once(mut coeffs: Vec<u64>, dev: sys::CUdeviceptr, stream: sys::CUstream) {
    let p = coeffs.as_mut_ptr();
    unsafe { sys::cuMemHostRegister_v2(p.cast(), coeffs.len() * 8, 0) };
    let release = || unsafe {
        sys::cuMemHostUnregister(p.cast());
    };
    release();
    unsafe {
        sys::cuMemcpyHtoDAsync_v2(dev, p.cast::<c_void>(), coeffs.len() * 8, stream); //~ pageable_async_copy
        sys::cuStreamSynchronize(stream);
    }
}

fn main() {}
