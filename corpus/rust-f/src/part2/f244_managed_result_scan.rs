//! case: database filter writes a match bitmap into cuMemAllocManaged memory (attach global); after the stream and context are synchronized, scoped host threads read the bitmap through the managed pointer cast to a slice (managed memory is host-addressable; no kernel is running)
//! expect: none
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::ffi::{CString, c_void};
use std::thread;

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const FILTER_SRC: &str = r#"
extern "C" __global__ void range_filter(const int* col, unsigned int n, int lo, int hi, unsigned int* bitmap) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = col[i];
    if (v >= lo && v < hi) atomicOr(&bitmap[i / 32], 1u << (i % 32));
}
"#;

pub trait Predicate {
    fn bounds(&self) -> (i32, i32);
}

pub struct Between(pub i32, pub i32);
impl Predicate for Between {
    fn bounds(&self) -> (i32, i32) {
        (self.0, self.1)
    }
}

pub struct FilterOp {
    stream: sys::CUstream,
    func: sys::CUfunction,
}

impl FilterOp {
    pub fn new() -> Res<Self> {
        drv::init()?;
        let ctx = unsafe { drv::primary_ctx::retain(drv::device::get(0)?) }?;
        unsafe { drv::ctx::set_current(ctx) }?;
        let image = CString::new(cudarc::nvrtc::compile_ptx(FILTER_SRC)?.to_src())?;
        let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
        let func = unsafe { drv::module::get_function(module, CString::new("range_filter")?) }?;
        Ok(FilterOp { stream: drv::stream::create(drv::stream::StreamKind::NonBlocking)?, func })
    }

    /// Row ids of `col` (n ints on the device) matching `pred`.
    pub fn select<P: Predicate>(&self, col: sys::CUdeviceptr, n: u32, pred: &P) -> Res<Vec<u32>> {
        let words = n.div_ceil(32) as usize;
        let mut bitmap = 0;
        unsafe {
            sys::cuMemAllocManaged(&mut bitmap, words * 4, sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32).result()?;
            sys::cuMemsetD32Async(bitmap, 0, words, self.stream).result()?;
        }
        let (lo, hi) = pred.bounds();
        let (mut c, mut nn, mut l, mut h, mut b) = (col, n, lo, hi, bitmap);
        let mut params: [*mut c_void; 5] = [
            (&mut c as *mut u64).cast(),
            (&mut nn as *mut u32).cast(),
            (&mut l as *mut i32).cast(),
            (&mut h as *mut i32).cast(),
            (&mut b as *mut u64).cast(),
        ];
        unsafe {
            drv::launch_kernel(self.func, (n.div_ceil(256), 1, 1), (256, 1, 1), 0, self.stream, &mut params)?;
            drv::stream::synchronize(self.stream)?;
            // Other operators of the query may have kernels of their own in flight.
            drv::ctx::synchronize()?;
        }

        let bits = unsafe { std::slice::from_raw_parts(bitmap as *const u32, words) };
        let chunk = words.div_ceil(4).max(1);
        let rows: Vec<u32> = thread::scope(|s| {
            let parts: Vec<_> = bits
                .chunks(chunk)
                .enumerate()
                .map(|(ci, part)| {
                    s.spawn(move || {
                        let mut out = Vec::new();
                        for (wi, &w) in part.iter().enumerate() {
                            let base = ((ci * chunk + wi) * 32) as u32;
                            (0..32).filter(|b| w & (1 << b) != 0).for_each(|b| out.push(base + b));
                        }
                        out
                    })
                })
                .collect();
            parts.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
        });
        unsafe { sys::cuMemFree_v2(bitmap) }.result()?;
        Ok(rows)
    }
}
