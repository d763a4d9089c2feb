//! DQN-style target network: after each learner step the target weights are blended in place,
//! target = tau * online + (1 - tau) * target, with `cublasSgeam` on the learner's stream. The
//! actor runs on its own stream and takes a snapshot of the target weights for its rollouts
//! (device-to-device) once the learner's "target updated" event has fired on the device.

use std::error::Error;
use std::ffi::c_void;

use cudarc::cublas::{result as blas, sys as blas_sys};
use cudarc::driver::{CudaContext, result as drv, sys as cu};

const F32: usize = std::mem::size_of::<f32>();

struct DeviceBuffer {
    ptr: cu::CUdeviceptr,
    len: usize,
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        unsafe {
            let _ = cu::cuCtxSynchronize();
            let _ = drv::free_sync(self.ptr);
        }
    }
}

struct PinnedBuffer {
    ptr: *mut f32,
    len: usize,
}

impl Drop for PinnedBuffer {
    fn drop(&mut self) {
        unsafe {
            let _ = cu::cuCtxSynchronize();
            let _ = drv::free_host(self.ptr as *mut c_void);
        }
    }
}

pub struct TargetSync {
    pub tau: f32,
    pub rows: usize,
    pub cols: usize,
}

pub fn blend_and_snapshot_after_event(cfg: TargetSync) -> Result<f32, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let (rows, cols) = (cfg.rows, cfg.cols);
    let count = rows * cols;

    let mut learner: cu::CUstream = std::ptr::null_mut();
    unsafe { cu::cuStreamCreate(&mut learner, cu::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;
    let mut actor: cu::CUstream = std::ptr::null_mut();
    unsafe { cu::cuStreamCreate(&mut actor, cu::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }.result()?;

    let handle = blas::create_handle()?;
    unsafe { blas_sys::cublasSetStream_v2(handle, learner as _) }.result()?;
    let mut target_updated: cu::CUevent = std::ptr::null_mut();
    unsafe { cu::cuEventCreate(&mut target_updated, cu::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32) }.result()?;

    let online = DeviceBuffer { ptr: unsafe { drv::malloc_sync(count * F32)? }, len: count };
    let target = DeviceBuffer { ptr: unsafe { drv::malloc_sync(count * F32)? }, len: count };
    let snapshot = DeviceBuffer { ptr: unsafe { drv::malloc_sync(count * F32)? }, len: count };

    let h_online_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(count * F32, 0)? } as *mut f32, len: count };
    let h_target_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(count * F32, 0)? } as *mut f32, len: count };
    let h_snap_buf = PinnedBuffer { ptr: unsafe { drv::malloc_host(count * F32, 0)? } as *mut f32, len: count };
    let h_online: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_online_buf.ptr, count) };
    let h_target: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_target_buf.ptr, count) };
    let h_snap: &mut [f32] = unsafe { std::slice::from_raw_parts_mut(h_snap_buf.ptr, count) };

    for (i, (o, t)) in h_online.iter_mut().zip(h_target.iter_mut()).enumerate() {
        *o = ((i % 13) as f32 - 6.0) * 0.05;
        *t = 0.0;
    }
    unsafe {
        cu::cuMemcpyHtoDAsync_v2(online.ptr, h_online.as_ptr() as *const c_void, count * F32, learner).result()?;
        cu::cuMemcpyHtoDAsync_v2(target.ptr, h_target.as_ptr() as *const c_void, count * F32, learner).result()?;
        cu::cuStreamSynchronize(learner).result()?;
    }

    // target = tau * online + (1 - tau) * target, in place (C == B, ldb == ldc).
    let tau = cfg.tau;
    let keep = 1.0 - tau;
    unsafe {
        blas_sys::cublasSgeam(
            handle,
            blas_sys::cublasOperation_t::CUBLAS_OP_N,
            blas_sys::cublasOperation_t::CUBLAS_OP_N,
            rows as i32,
            cols as i32,
            &tau,
            online.ptr as *const f32,
            rows as i32,
            &keep,
            target.ptr as *const f32,
            rows as i32,
            target.ptr as *mut f32,
            rows as i32,
        )
        .result()?;
        cu::cuEventRecord(target_updated, learner).result()?;
    }

    // Actor side: snapshot the target for the next rollouts and report its mean magnitude.
    unsafe {
        cu::cuStreamWaitEvent(actor, target_updated, 0).result()?;
        cu::cuMemcpyDtoDAsync_v2(snapshot.ptr, target.ptr, count * F32, actor).result()?;
        cu::cuMemcpyDtoHAsync_v2(h_snap.as_mut_ptr() as *mut c_void, snapshot.ptr, count * F32, actor).result()?;
        cu::cuStreamSynchronize(actor).result()?;
    }
    let mean_abs = h_snap.iter().map(|v| v.abs()).sum::<f32>() / count as f32;

    unsafe {
        cu::cuStreamSynchronize(learner).result()?;
        blas::destroy_handle(handle)?;
        cu::cuEventDestroy_v2(target_updated).result()?;
        cu::cuStreamDestroy_v2(learner).result()?;
        cu::cuStreamDestroy_v2(actor).result()?;
    }
    Ok(mean_abs)
}
