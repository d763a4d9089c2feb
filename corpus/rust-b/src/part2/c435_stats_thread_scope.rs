//! case: a batch scheduler keeps its request counters in globally attached managed memory (cuMemAllocManaged) and bumps them from the main thread while a worker thread's kernels run
//! expect: managed_concurrent_access=1
use std::sync::mpsc;
use std::sync::Arc;
use std::thread;

use cudarc::driver::{sys, CudaContext, CudaSlice, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void score(const float* feats, float* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tanhf(feats[i]);
}
"#;

#[repr(C)]
pub struct Counters {
    submitted: u64,
    rejected: u64,
}

pub fn schedule(ctx: Arc<CudaContext>, requests: Vec<usize>) -> Result<(u64, u64), Box<dyn std::error::Error>> {
    let f = ctx.load_module(compile_ptx(SRC)?)?.load_function("score")?;
    let mut counters: sys::CUdeviceptr = 0;
    unsafe {
        sys::cuMemAllocManaged(&mut counters, std::mem::size_of::<Counters>(), sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32).result()?;
        std::ptr::write(counters as *mut Counters, Counters { submitted: 0, rejected: 0 });
    }
    let (tx, rx) = mpsc::channel::<usize>();
    let worker_ctx = ctx.clone();
    let mut rejected = 0u64;
    let result = thread::scope(|s| -> Result<(), DriverError> {
        let worker = s.spawn(move || -> Result<(), DriverError> {
            let stream = worker_ctx.new_stream()?;
            let feats: CudaSlice<f32> = stream.alloc_zeros(1 << 20)?;
            let mut out: CudaSlice<f32> = stream.alloc_zeros(1 << 20)?;
            for len in rx {
                let n = len.min(1 << 20) as u32;
                unsafe { stream.launch_builder(&f).arg(&feats).arg(&mut out).arg(&n).launch(LaunchConfig::for_num_elems(n))? };
            }
            stream.synchronize()
        });
        for len in requests {
            if len == 0 {
                rejected += 1;
                continue;
            }
            let c = unsafe { &mut *(counters as *mut Counters) };
            c.submitted += 1; // EXPECT: managed_concurrent_access
            if tx.send(len).is_err() {
                break;
            }
        }
        drop(tx);
        worker.join().expect("worker panicked")
    });
    result?;
    // the worker synchronized its stream before the join returned
    unsafe { (*(counters as *mut Counters)).rejected = rejected };
    let c = unsafe { std::ptr::read(counters as *const Counters) };
    unsafe { sys::cuMemFree_v2(counters).result()? };
    Ok((c.submitted, c.rejected))
}
