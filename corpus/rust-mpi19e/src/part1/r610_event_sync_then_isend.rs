//! case: near miss of r609: the stage records an event after `encode` and synchronizes it before `MPI_Isend` of the device payload, overlaps a `checksum` kernel that only reads the payload (two reads never race) and writes its own buffer, and completes the send with `MPI_Wait` before the next frame's `encode` rewrites the payload.
//! expect: none

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
extern "C" __global__ void checksum(const short* payload, unsigned int* sum, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(sum, (unsigned int)(unsigned short)payload[i]);
}
"#;

fn isend_payload(buf: u64, n: i32, dest: i32) -> Result<MPI_Request, MpiError> {
    let mut req: MPI_Request = MPI_REQUEST_NULL;
    check(unsafe { MPI_Isend(buf as *const libc::c_void, n, MPI_SHORT, dest, 2, MPI_COMM_WORLD, &mut req) })?;
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
    let sum_k = module.load_function("checksum")?;

    let mut frame: CudaSlice<f32> = stream.alloc_zeros(n)?;
    let mut payload: CudaSlice<i16> = stream.alloc_zeros(n)?;
    let mut sums: CudaSlice<u32> = stream.alloc_zeros(1)?;
    let n_i = n as i32;
    let scale = 16384.0f32;
    let cfg = LaunchConfig::for_num_elems(n as u32);

    for f in 0..frames {
        let mut a = stream.launch_builder(&fill);
        a.arg(&mut frame).arg(&f).arg(&n_i);
        unsafe { a.launch(cfg) }?;
        let mut e = stream.launch_builder(&enc);
        e.arg(&frame).arg(&mut payload).arg(&scale).arg(&n_i);
        unsafe { e.launch(cfg) }?;
        let encoded = stream.record_event(None)?;
        encoded.synchronize()?;

        let mut req = isend_payload(payload.device_ptr(&stream).0, n_i, next)?;

        let mut c = stream.launch_builder(&sum_k);
        c.arg(&payload).arg(&mut sums).arg(&n_i);
        unsafe { c.launch(cfg) }?;

        check(unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) })?;
    }

    stream.synchronize()?;
    let total = stream.clone_dtoh(&sums)?;
    println!("rank {rank}: checksum {}", total[0]);
    Ok(())
}
