//! case: near miss: a telemetry publisher keeps a cudaMallocHost buffer, fills it on the host, posts MPI_Isend, overlaps a device kernel on unrelated buffers, and refills the buffer for the next record only after MPI_Wait has completed the send.
//! expect: none

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::ptr;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys::{cudaFreeHost, cudaMallocHost};

use crate::mpi::*;

const DECAY_SRC: &str = r#"
extern "C" __global__ void ema_update(float* __restrict__ ema, const float* __restrict__ x,
                                      float beta, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) ema[i] = beta * ema[i] + (1.0f - beta) * x[i];
}
"#;

const TAG_TELEMETRY: c_int = 4242;
pub const RECORD_LEN: usize = 8;

pub struct TelemetryPublisher {
    h_record: *mut f32,
    collector: c_int,
}

impl TelemetryPublisher {
    pub fn new(collector: c_int) -> Result<Self, Box<dyn Error>> {
        let mut p: *mut c_void = ptr::null_mut();
        unsafe { cudaMallocHost(&mut p, RECORD_LEN * std::mem::size_of::<f32>()).result()? };
        Ok(Self { h_record: p as *mut f32, collector })
    }

    /// Publishes one record per step in `steps`, updating the device EMA between sends.
    pub fn publish_steps(
        &mut self,
        ctx: &Arc<CudaContext>,
        stream: &Arc<CudaStream>,
        ema: &mut CudaSlice<f32>,
        x: &CudaSlice<f32>,
        steps: &[[f32; RECORD_LEN]],
    ) -> Result<(), Box<dyn Error>> {
        let ptx = compile_ptx(DECAY_SRC)?;
        let module = ctx.load_module(ptx)?;
        let ema_k = module.load_function("ema_update")?;
        let n = ema.len() as i32;
        let beta = 0.99f32;

        let record = unsafe { std::slice::from_raw_parts_mut(self.h_record, RECORD_LEN) };
        for (step, values) in steps.iter().enumerate() {
            record.copy_from_slice(values);
            record[0] = step as f32;

            let mut req: MPI_Request = MPI_REQUEST_NULL;
            let rc = unsafe { MPI_Isend(self.h_record as *const c_void, RECORD_LEN as c_int, MPI_FLOAT, self.collector, TAG_TELEMETRY, MPI_COMM_WORLD, &mut req) };
            mpi_check(rc, "MPI_Isend");

            let mut b = stream.launch_builder(&ema_k);
            b.arg(&mut *ema).arg(x).arg(&beta).arg(&n);
            let launched = unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) };

            let rc = unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
            mpi_check(rc, "MPI_Wait");
            launched?;
        }
        stream.synchronize()?;
        Ok(())
    }
}

impl Drop for TelemetryPublisher {
    fn drop(&mut self) {
        unsafe { cudaFreeHost(self.h_record as *mut c_void) };
    }
}
