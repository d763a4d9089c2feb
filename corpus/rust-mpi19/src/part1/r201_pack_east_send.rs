//! case: a 2-D stencil's halo exchange packs the east boundary column into a device send buffer with a kernel and passes that buffer straight to MPI_Send with no stream synchronize, so MPI may read the halo before pack_east has written it.
//! expect: missing_sync=1

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::mpi::*;

const PACK_SRC: &str = r#"
extern "C" __global__ void pack_east(const float* __restrict__ field,
                                     float* __restrict__ halo,
                                     int nx, int ny)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ny) {
        halo[j] = field[j * nx + (nx - 1)];
    }
}
"#;

const TAG_EAST: c_int = 11;

/// The part of the global grid this rank owns.
pub struct Subdomain {
    pub nx: usize,
    pub ny: usize,
    pub east: c_int,
    pub west: c_int,
}

impl Subdomain {
    pub fn has_east_neighbour(&self) -> bool {
        self.east != MPI_PROC_NULL
    }
}

/// Sends this rank's easternmost column to the east neighbour (CUDA-aware MPI, device
/// buffer). The neighbour posts the matching receive in its own `recv_west_halo`.
pub fn send_east_halo(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    field: &CudaSlice<f32>,
    halo: &mut CudaSlice<f32>,
    dom: &Subdomain,
) -> Result<(), Box<dyn Error>> {
    if !dom.has_east_neighbour() {
        return Ok(());
    }
    assert!(halo.len() >= dom.ny);
    assert!(field.len() >= dom.nx * dom.ny);

    let ptx = compile_ptx(PACK_SRC)?;
    let module = ctx.load_module(ptx)?;
    let pack = module.load_function("pack_east")?;

    let nx = dom.nx as i32;
    let ny = dom.ny as i32;
    let cfg = LaunchConfig::for_num_elems(dom.ny as u32);
    let mut b = stream.launch_builder(&pack);
    b.arg(field).arg(&mut *halo).arg(&nx).arg(&ny);
    unsafe { b.launch(cfg)? };

    // CUDA-aware MPI: hand the device pointer to the library directly.
    let d_halo = halo.device_ptr(stream).0;
    let rc = unsafe { MPI_Send(d_halo as *const c_void, ny, MPI_FLOAT, dom.east, TAG_EAST, MPI_COMM_WORLD) }; // EXPECT: missing_sync
    mpi_check(rc, "MPI_Send");
    Ok(())
}
