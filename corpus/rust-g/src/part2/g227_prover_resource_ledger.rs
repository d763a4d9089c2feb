//! case: zk-prover memory ledger that records, at allocation time, a boxed closure releasing each buffer with its own allocator's function (cuMemFree for device and managed memory, cuMemFreeHost for cuMemHostAlloc memory, cuMemHostUnregister for a registered Vec); teardown synchronizes the context and runs them in reverse order
//! expect: none

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const COSET_SRC: &str = r#"
typedef unsigned long long u64;
#define BB_P 2013265921ull   // BabyBear
extern "C" __global__ void coset_shift(u64* coeffs, const u64* shift_powers, unsigned n, u64* checksum) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    u64 c = (coeffs[i] * shift_powers[i]) % BB_P;
    coeffs[i] = c;
    atomicAdd(checksum, c);
}
"#;

#[derive(Default)]
pub struct Ledger {
    releases: Vec<Box<dyn FnOnce()>>,
}

impl Ledger {
    pub fn device(&mut self, bytes: usize) -> Result<CUdeviceptr> {
        let mut d = 0;
        unsafe { sys::cuMemAlloc_v2(&mut d, bytes).result()? };
        self.releases.push(Box::new(move || unsafe {
            let _ = sys::cuMemFree_v2(d);
        }));
        Ok(d)
    }

    pub fn pinned(&mut self, bytes: usize) -> Result<*mut u8> {
        let mut p: *mut c_void = null_mut();
        unsafe { sys::cuMemHostAlloc(&mut p, bytes, sys::CU_MEMHOSTALLOC_PORTABLE).result()? };
        self.releases.push(Box::new(move || unsafe {
            let _ = sys::cuMemFreeHost(p);
        }));
        Ok(p.cast())
    }

    pub fn managed(&mut self, bytes: usize) -> Result<CUdeviceptr> {
        let mut d = 0;
        unsafe { sys::cuMemAllocManaged(&mut d, bytes, sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32).result()? };
        self.releases.push(Box::new(move || unsafe {
            let _ = sys::cuMemFree_v2(d);
        }));
        Ok(d)
    }

    /// Page-locks `v` in place; the ledger owns it until teardown.
    pub fn register(&mut self, mut v: Vec<u64>) -> Result<*mut u64> {
        let p = v.as_mut_ptr();
        unsafe { sys::cuMemHostRegister_v2(p.cast(), v.len() * 8, 0).result()? };
        self.releases.push(Box::new(move || unsafe {
            let _ = sys::cuMemHostUnregister(v.as_mut_ptr().cast());
            drop(v);
        }));
        Ok(p)
    }

    pub fn teardown(mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
        }
        while let Some(release) = self.releases.pop() {
            release();
        }
    }
}

/// Shifts the polynomial onto the coset g*H and returns the coefficient checksum.
pub fn coset_lde(coeffs: Vec<u64>, shift: u64) -> Result<u64> {
    const P: u64 = 2013265921;
    let n = coeffs.len();
    let mut dev = 0;
    let mut ctx = null_mut();
    let mut stream = null_mut();
    unsafe {
        sys::cuInit(0).result()?;
        sys::cuDeviceGet(&mut dev, 0).result()?;
        sys::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
        sys::cuCtxSetCurrent(ctx).result()?;
        sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
    }
    let ptx = cudarc::nvrtc::compile_ptx(COSET_SRC)?;
    let image = CString::new(ptx.to_src())?;
    let (mut module, mut kernel) = (null_mut(), null_mut());
    unsafe {
        sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
        sys::cuModuleGetFunction(&mut kernel, module, c"coset_shift".as_ptr()).result()?;
    }

    let mut ledger = Ledger::default();
    let run = |ledger: &mut Ledger| -> Result<u64> {
        let host_coeffs = ledger.register(coeffs)?;
        let powers = ledger.pinned(n * 8)?.cast::<u64>();
        let mut acc = 1u64;
        for i in 0..n {
            unsafe { powers.add(i).write(acc) };
            acc = acc * shift % P;
        }
        let d_coeffs = ledger.device(n * 8)?;
        let d_powers = ledger.device(n * 8)?;
        let checksum = ledger.managed(8)?;
        unsafe {
            *(checksum as *mut u64) = 0;
            sys::cuMemcpyHtoDAsync_v2(d_coeffs, host_coeffs.cast(), n * 8, stream).result()?;
            sys::cuMemcpyHtoDAsync_v2(d_powers, powers.cast(), n * 8, stream).result()?;
        }
        let (mut c, mut p, mut n32, mut s) = (d_coeffs, d_powers, n as u32, checksum);
        let mut params: [*mut c_void; 4] = [
            (&mut c as *mut u64).cast(),
            (&mut p as *mut u64).cast(),
            (&mut n32 as *mut u32).cast(),
            (&mut s as *mut u64).cast(),
        ];
        unsafe {
            sys::cuLaunchKernel(kernel, n32.div_ceil(256), 1, 1, 256, 1, 1, 0, stream, params.as_mut_ptr(), null_mut()).result()?;
            sys::cuMemcpyDtoHAsync_v2(host_coeffs.cast(), d_coeffs, n * 8, stream).result()?;
            sys::cuStreamSynchronize(stream).result()?;
            Ok(*(checksum as *const u64))
        }
    };
    let result = run(&mut ledger);
    ledger.teardown();
    unsafe {
        let _ = sys::cuModuleUnload(module);
        let _ = sys::cuStreamDestroy_v2(stream);
    }
    result
}
