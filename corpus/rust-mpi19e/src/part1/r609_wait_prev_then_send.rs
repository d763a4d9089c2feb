//! case: a pipeline stage sends a host header with `MPI_Isend` (request returned by `send_header`), launches `encode` writing the device payload, then waits for the header request with `MPI_Wait` and sends the payload with a blocking `MPI_Send`; the MPI wait does not wait for the kernel, so the send may read the payload while `encode` still writes it (fires at `MPI_Send`).
//! expect: missing_sync=1

use std::error::Error;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::mpi::*;

const KERNELS: &str = r#"
extern "C" __global__ void fill_frame(float* frame, int frame_no, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) frame[i] = __sinf(0.001f * (float)(i + frame_no));
}
extern "C" __global__ void encode(const float* frame, short* payload, float scale, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) payload[i] = (short)__float2int_rn(frame[i] * scale);
}
"#;

const HDR_LEN: usize = 4;

/// Sends the frame header ahead of the payload; the caller completes the request.
fn send_header(hdr: &[i32; HDR_LEN], dest: i32) -> Result<MPI_Request, MpiError> {
    let mut req: MPI_Request = MPI_REQUEST_NULL;
    check(unsafe {
        MPI_Isend(hdr.as_ptr() as *const libc::c_void, HDR_LEN as i32, MPI_INT, dest, 1, MPI_COMM_WORLD, &mut req)
    })?;
    Ok(req)
}

pub fn run(n: usize, frames: i32) -> Result<(), Box<dyn Error>> {
    let rank = world_rank()?;
    let next = rank + 1;

    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let fill = module.load_function("fill_frame")?;
    let enc = module.load_function("encode")?;

    let mut frame: CudaSlice<f32> = stream.alloc_zeros(n)?;
    let mut payload: CudaSlice<i16> = stream.alloc_zeros(n)?;
    let n_i = n as i32;
    let scale = 16384.0f32;
    let cfg = LaunchConfig::for_num_elems(n as u32);

    for f in 0..frames {
        let hdr = [f, n_i, 2, 0];
        let mut hreq = send_header(&hdr, next)?;

        let mut a = stream.launch_builder(&fill);
        a.arg(&mut frame).arg(&f).arg(&n_i);
        unsafe { a.launch(cfg) }?;
        let mut e = stream.launch_builder(&enc);
        e.arg(&frame).arg(&mut payload).arg(&scale).arg(&n_i);
        unsafe { e.launch(cfg) }?;

        check(unsafe { MPI_Wait(&mut hreq, MPI_STATUS_IGNORE) })?;
        check(unsafe {
            MPI_Send( // EXPECT: missing_sync
                payload.device_ptr(&stream).0 as *const libc::c_void,
                n_i,
                MPI_SHORT,
                next,
                2,
                MPI_COMM_WORLD,
            )
        })?;
    }

    stream.synchronize()?;
    Ok(())
}
