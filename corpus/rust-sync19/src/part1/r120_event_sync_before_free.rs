//! case: a scatter-add kernel reads an index buffer; an event recorded after the launch is synchronized with driver::result::event::synchronize before the index buffer's free_sync, and the result is copied back with a blocking copy
//! expect: none

use std::error::Error;
use std::ffi::{CString, c_void};

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{self, CUdeviceptr, CUevent_flags};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void scatter_add(const float* values, const int* slot, float* sums, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&sums[slot[i]], values[i]);
}
"#;

/// Sums `values` into `slots` buckets given by `slot`.
pub fn bucket_sums(values: &[f32], slot: &[i32], slots: usize) -> Result<Vec<f32>, Box<dyn Error>> {
    assert_eq!(values.len(), slot.len());
    assert!(slot.iter().all(|&s| s >= 0 && (s as usize) < slots));
    let n = values.len();
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
    let f = unsafe { result::module::get_function(module, CString::new("scatter_add")?)? };
    let stream = result::stream::create(result::stream::StreamKind::Default)?;
    let done = result::event::create(CUevent_flags::CU_EVENT_DISABLE_TIMING)?;

    let mut sums = vec![0.0f32; slots];
    unsafe {
        let mut d_values: CUdeviceptr = 0;
        let mut d_slot: CUdeviceptr = 0;
        let mut d_sums: CUdeviceptr = 0;
        let a1 = sys::cuMemAlloc_v2(&mut d_values, n * 4);
        let a2 = sys::cuMemAlloc_v2(&mut d_slot, n * 4);
        let a3 = sys::cuMemAlloc_v2(&mut d_sums, slots * 4);
        if let Err(e) = a1.result().and(a2.result()).and(a3.result()) {
            let _ = result::free_sync(d_values);
            let _ = result::free_sync(d_slot);
            let _ = result::free_sync(d_sums);
            return Err(e.into());
        }
        let mut status: Result<(), DriverError> = result::memcpy_htod_sync(d_values, values)
            .and(result::memcpy_htod_sync(d_slot, slot))
            .and(result::memcpy_htod_sync(d_sums, &sums));
        if status.is_ok() {
            let (mut p_v, mut p_s, mut p_sum, mut n_i) = (d_values, d_slot, d_sums, n as i32);
            let mut args: [*mut c_void; 4] =
                [(&raw mut p_v).cast(), (&raw mut p_s).cast(), (&raw mut p_sum).cast(), (&raw mut n_i).cast()];
            status = result::launch_kernel(f, (n.div_ceil(256) as u32, 1, 1), (256, 1, 1), 0, stream, &mut args)
                .and(result::event::record(done, stream));
        }
        let waited = result::event::synchronize(done);
        let _ = result::free_sync(d_slot);
        let _ = result::free_sync(d_values);
        if status.is_ok() && waited.is_ok() {
            status = result::memcpy_dtoh_sync(&mut sums, d_sums);
        }
        let _ = result::free_sync(d_sums);
        let _ = result::event::destroy(done);
        let _ = result::stream::destroy(stream);
        let _ = result::module::unload(module);
        status?;
        waited?;
    }
    Ok(sums)
}
