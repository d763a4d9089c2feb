//! case: a generic Exchanger<T> posts two MPI_Irecv and two MPI_Isend in start() and completes them with MPI_Waitall in complete(); the halo step launches the kernel that unpacks the low halo between start() and complete(), so it reads recv_lo while the receive into it is still in flight (the high halo is unpacked correctly after complete()).
//! expect: missing_sync=1

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr,
    DriverError, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

use crate::mpi_sys::*;

const TAG_TO_LO: c_int = 21;
const TAG_TO_HI: c_int = 22;

/// Halo buffers and the four requests of one exchange with the two neighbours.
pub struct Exchanger<T> {
    stream: Arc<CudaStream>,
    pub send_lo: CudaSlice<T>,
    pub send_hi: CudaSlice<T>,
    pub recv_lo: CudaSlice<T>,
    pub recv_hi: CudaSlice<T>,
    reqs: [MPI_Request; 4],
    lo: c_int,
    hi: c_int,
    count: c_int,
    dtype: MPI_Datatype,
}

impl<T: DeviceRepr> Exchanger<T> {
    pub fn new(
        stream: &Arc<CudaStream>,
        count: usize,
        lo: c_int,
        hi: c_int,
        dtype: MPI_Datatype,
    ) -> Result<Self, DriverError> {
        // Send halos are written by the pack kernel, receive halos by MPI.
        Ok(Self {
            stream: stream.clone(),
            send_lo: unsafe { stream.alloc(count)? },
            send_hi: unsafe { stream.alloc(count)? },
            recv_lo: unsafe { stream.alloc(count)? },
            recv_hi: unsafe { stream.alloc(count)? },
            reqs: [MPI_REQUEST_NULL; 4],
            lo,
            hi,
            count: count as c_int,
            dtype,
        })
    }

    /// Posts the receives first, then the sends. The send halos must be packed and
    /// their stream synchronized by the caller.
    pub fn start(&mut self) {
        let rl = self.recv_lo.device_ptr_mut(&self.stream).0;
        let rh = self.recv_hi.device_ptr_mut(&self.stream).0;
        let sl = self.send_lo.device_ptr(&self.stream).0;
        let sh = self.send_hi.device_ptr(&self.stream).0;
        let (n, t, w) = (self.count, self.dtype, MPI_COMM_WORLD);
        unsafe {
            MPI_Irecv(rl as *mut c_void, n, t, self.lo, TAG_TO_HI, w, &mut self.reqs[0]);
            MPI_Irecv(rh as *mut c_void, n, t, self.hi, TAG_TO_LO, w, &mut self.reqs[1]);
            MPI_Isend(sl as *const c_void, n, t, self.lo, TAG_TO_LO, w, &mut self.reqs[2]);
            MPI_Isend(sh as *const c_void, n, t, self.hi, TAG_TO_HI, w, &mut self.reqs[3]);
        }
    }

    pub fn complete(&mut self) {
        unsafe { MPI_Waitall(4, self.reqs.as_mut_ptr(), MPI_STATUSES_IGNORE) };
    }
}

pub const JACOBI_SRC: &str = r#"
extern "C" __global__ void pack(const float* u, float* lo, float* hi, int n, int w) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < w) { lo[i] = u[w + i]; hi[i] = u[n + i]; }
}
extern "C" __global__ void interior(const float* u, float* out, int n, int w) {
    int i = w + 1 + blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n + w - 1) out[i] = 0.5f * (u[i - 1] + u[i + 1]);
}
extern "C" __global__ void unpack(float* out, const float* halo, int first, int w) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < w) out[first + i] = halo[i];
}
"#;

pub struct JacobiKernels {
    pub pack: CudaFunction,
    pub interior: CudaFunction,
    pub unpack: CudaFunction,
}

impl JacobiKernels {
    pub fn load(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        let m = ctx.load_module(compile_ptx(JACOBI_SRC)?)?;
        Ok(Self {
            pack: m.load_function("pack")?,
            interior: m.load_function("interior")?,
            unpack: m.load_function("unpack")?,
        })
    }
}

/// One Jacobi sweep of a slab with `w` ghost cells on each side: `u` -> `out`.
pub fn jacobi_step(
    stream: &Arc<CudaStream>,
    k: &JacobiKernels,
    ex: &mut Exchanger<f32>,
    u: &CudaSlice<f32>,
    out: &mut CudaSlice<f32>,
    n: usize,
    w: usize,
) -> Result<(), DriverError> {
    let (n_i, w_i) = (n as c_int, w as c_int);
    let halo_cfg = LaunchConfig::for_num_elems(w as u32);

    let mut p = stream.launch_builder(&k.pack);
    p.arg(u).arg(&mut ex.send_lo).arg(&mut ex.send_hi).arg(&n_i).arg(&w_i);
    unsafe { p.launch(halo_cfg)? };
    stream.synchronize()?; // MPI reads the send halos on the host's timeline

    ex.start();

    // Overlap: the interior does not need the halos.
    let mut it = stream.launch_builder(&k.interior);
    it.arg(u).arg(&mut *out).arg(&n_i).arg(&w_i);
    unsafe { it.launch(LaunchConfig::for_num_elems(n as u32))? };

    // The low neighbour is usually first to deliver, so its halo was moved up here.
    let lo_first: c_int = 0;
    let mut ul = stream.launch_builder(&k.unpack);
    ul.arg(&mut *out).arg(&ex.recv_lo).arg(&lo_first).arg(&w_i);
    unsafe { ul.launch(halo_cfg)? }; // EXPECT: missing_sync

    ex.complete();

    let hi_first: c_int = n_i + w_i;
    let mut uh = stream.launch_builder(&k.unpack);
    uh.arg(&mut *out).arg(&ex.recv_hi).arg(&hi_first).arg(&w_i);
    unsafe { uh.launch(halo_cfg)? };

    stream.synchronize()
}
