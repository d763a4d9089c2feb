//! case: zk prover constraint checker in an async fn: it uploads the witness from pinned staging, records an event right after the upload, launches the constraint kernel and the copy of the violation count into pinned memory, then awaits a cuEventQuery-polling future on the upload event (so the staging can be refilled) and reads the count, which that event does not cover
//! expect: missing_sync=1

use std::error::Error;
use std::ffi::{c_void, CString};
use std::future::Future;
use std::pin::Pin;
use std::ptr::null_mut;
use std::task::{Context, Poll, Waker};

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{self, CUdeviceptr, CUevent};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const R1CS_SRC: &str = r#"
typedef unsigned long long u64;
#define BN_P 0xffffffff00000001ull
__device__ u64 mulmod(u64 a, u64 b) { return (u64)(((unsigned __int128)a * b) % BN_P); }
// Each row: (A.w) * (B.w) == (C.w) with single-term sparse rows (index, coeff).
extern "C" __global__ void check_rows(const u64* witness, const uint4* rows, unsigned nrows,
                                      unsigned* violations) {
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nrows) return;
    uint4 row = rows[r];                       // a_idx, b_idx, c_idx, coeff
    u64 lhs = mulmod(witness[row.x], witness[row.y]);
    u64 rhs = mulmod(witness[row.z], row.w);
    if (lhs != rhs) atomicAdd(violations, 1u);
}
"#;

struct EventFuture(CUevent);

impl Future for EventFuture {
    type Output = std::result::Result<(), DriverError>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match unsafe { result::event::query(self.0) } {
            Ok(()) => Poll::Ready(Ok(())),
            Err(DriverError(sys::CUresult::CUDA_ERROR_NOT_READY)) => {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
            Err(e) => Poll::Ready(Err(e)),
        }
    }
}

fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

pub struct ConstraintChecker {
    stream: sys::CUstream,
    module: sys::CUmodule,
    kernel: sys::CUfunction,
    staged: CUevent,
    d_witness: CUdeviceptr,
    d_rows: CUdeviceptr,
    d_count: CUdeviceptr,
    witness_pinned: *mut u64,
    count_pinned: *mut u32,
    nrows: u32,
    nvars: usize,
}

impl ConstraintChecker {
    pub fn new(rows_pinned: *const [u32; 4], nrows: u32, nvars: usize) -> Result<Self> {
        result::init()?;
        let dev = result::device::get(0)?;
        unsafe { result::ctx::set_current(result::primary_ctx::retain(dev)?)? };
        let stream = result::stream::create(result::stream::StreamKind::NonBlocking)?;
        let staged = result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)?;
        let ptx = cudarc::nvrtc::compile_ptx(R1CS_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
        let kernel = unsafe { result::module::get_function(module, CString::new("check_rows")?)? };
        unsafe {
            let d_witness = result::malloc_sync(nvars * 8)?;
            let d_rows = result::malloc_sync(nrows as usize * 16)?;
            let d_count = result::malloc_sync(4)?;
            let witness_pinned = result::malloc_host(nvars * 8, 0)?.cast::<u64>();
            let count_pinned = result::malloc_host(4, 0)?.cast::<u32>();
            sys::cuMemcpyHtoDAsync_v2(d_rows, rows_pinned.cast(), nrows as usize * 16, stream).result()?;
            result::stream::synchronize(stream)?;
            Ok(Self { stream, module, kernel, staged, d_witness, d_rows, d_count, witness_pinned, count_pinned, nrows, nvars })
        }
    }

    /// Number of violated rows for `witness`.
    pub async fn violations(&mut self, witness: &[u64]) -> Result<u32> {
        unsafe {
            std::slice::from_raw_parts_mut(self.witness_pinned, self.nvars).copy_from_slice(&witness[..self.nvars]);
            sys::cuMemcpyHtoDAsync_v2(self.d_witness, self.witness_pinned.cast(), self.nvars * 8, self.stream).result()?;
            result::event::record(self.staged, self.stream)?;
            result::memset_d8_async(self.d_count, 0, 4, self.stream)?;
        }
        let (mut w, mut r, mut c, mut n) = (self.d_witness, self.d_rows, self.d_count, self.nrows);
        let mut params: [*mut c_void; 4] = [
            (&mut w as *mut u64).cast(),
            (&mut r as *mut u64).cast(),
            (&mut n as *mut u32).cast(),
            (&mut c as *mut u64).cast(),
        ];
        unsafe {
            result::launch_kernel(self.kernel, (n.div_ceil(256), 1, 1), (256, 1, 1), 0, self.stream, &mut params)?;
            sys::cuMemcpyDtoHAsync_v2(self.count_pinned.cast(), self.d_count, 4, self.stream).result()?;
        }
        // Let other provers run while the witness is being staged.
        EventFuture(self.staged).await?;
        let count = unsafe { self.count_pinned.read() }; // EXPECT: missing_sync
        Ok(count)
    }
}

impl Drop for ConstraintChecker {
    fn drop(&mut self) {
        unsafe {
            let _ = result::stream::synchronize(self.stream);
            let _ = result::free_sync(self.d_witness);
            let _ = result::free_sync(self.d_rows);
            let _ = result::free_sync(self.d_count);
            let _ = result::free_host(self.witness_pinned.cast());
            let _ = result::free_host(self.count_pinned.cast());
            let _ = result::event::destroy(self.staged);
            let _ = result::module::unload(self.module);
            let _ = result::stream::destroy(self.stream);
        }
    }
}

pub fn check_all(checker: &mut ConstraintChecker, witnesses: &[Vec<u64>]) -> Result<Vec<u32>> {
    block_on(async {
        let mut out = Vec::with_capacity(witnesses.len());
        for w in witnesses {
            out.push(checker.violations(w).await?);
        }
        Ok(out)
    })
}
