//! case: near-miss. Data-parallel trainer passes raw device pointers of its cudarc gradient buckets to NCCL's `ncclAllReduce` through its own FFI block and logs the bucket addresses as hex numbers: handing a device pointer to a C library and formatting its value are not host accesses of device memory; the loss scale is read back through pinned memory after a synchronize
//! expect: none

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DriverError, PinnedHostSlice};

type NcclComm = *mut c_void;

const NCCL_FLOAT32: i32 = 7;
const NCCL_SUM: i32 = 0;

#[link(name = "nccl")]
unsafe extern "C" {
    fn ncclAllReduce(sendbuff: *const c_void, recvbuff: *mut c_void, count: usize, datatype: i32, op: i32, comm: NcclComm, stream: sys::CUstream) -> i32;
    fn ncclGroupStart() -> i32;
    fn ncclGroupEnd() -> i32;
}

pub struct Bucket {
    pub name: &'static str,
    pub grads: CudaSlice<f32>,
}

pub struct DdpReducer {
    stream: Arc<CudaStream>,
    comm: NcclComm,
    buckets: Vec<Bucket>,
    overflow_dev: CudaSlice<f32>,
    overflow_host: PinnedHostSlice<f32>,
}

#[derive(Debug)]
pub enum ReduceError {
    Nccl(i32),
    Driver(DriverError),
}

impl From<DriverError> for ReduceError {
    fn from(e: DriverError) -> Self {
        ReduceError::Driver(e)
    }
}

impl DdpReducer {
    pub fn new(ctx: &Arc<CudaContext>, comm: NcclComm, sizes: &[(&'static str, usize)]) -> Result<Self, ReduceError> {
        let stream = ctx.new_stream()?;
        let buckets = sizes
            .iter()
            .map(|&(name, n)| stream.alloc_zeros::<f32>(n).map(|grads| Bucket { name, grads }))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            overflow_dev: stream.alloc_zeros::<f32>(1)?,
            overflow_host: unsafe { ctx.alloc_pinned_with_flags::<f32>(1, 0)? },
            stream,
            comm,
            buckets,
        })
    }

    pub fn all_reduce(&mut self, verbose: bool) -> Result<f32, ReduceError> {
        let rc = unsafe { ncclGroupStart() };
        if rc != 0 {
            return Err(ReduceError::Nccl(rc));
        }
        for b in self.buckets.iter_mut() {
            let n = b.grads.len();
            let (ptr, _record) = b.grads.device_ptr_mut(&self.stream);
            if verbose {
                eprintln!("allreduce {} at {:#x} ({} floats)", b.name, ptr, n);
            }
            let rc = unsafe { ncclAllReduce(ptr as *const c_void, ptr as *mut c_void, n, NCCL_FLOAT32, NCCL_SUM, self.comm, self.stream.cu_stream()) };
            if rc != 0 {
                unsafe { ncclGroupEnd() };
                return Err(ReduceError::Nccl(rc));
            }
        }
        let rc = unsafe { ncclGroupEnd() };
        if rc != 0 {
            return Err(ReduceError::Nccl(rc));
        }
        self.stream.memcpy_dtoh(&self.overflow_dev, &mut self.overflow_host)?;
        self.stream.synchronize()?;
        Ok(self.overflow_host.as_slice()?[0])
    }

    pub fn bucket_addresses(&self) -> Vec<(&'static str, u64)> {
        self.buckets.iter().map(|b| (b.name, b.grads.device_ptr(&self.stream).0)).collect()
    }
}
