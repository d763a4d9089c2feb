//! case: encrypted-tunnel transmit path on cudarc's `result` layer; each packet batch is written into one pinned staging buffer (`result::malloc_host`) and uploaded with `memcpy_htod_async`, but the loop writes the next batch into the staging while the previous upload may still be reading it, and synchronizes only after the loop
//! expect: missing_sync=1

use std::sync::Arc;

use cudarc::driver::result;
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaContext, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const XOR_SRC: &str = r#"
extern "C" __global__ void keystream_xor(const unsigned char* plain, unsigned char* cipher, unsigned long long nonce, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long s = (nonce + i) * 0x2545F4914F6CDD1Dull;
    cipher[i] = plain[i] ^ (unsigned char)(s >> 56);
}
"#;

pub struct TxPath {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    xor: CudaFunction,
    staging: *mut u8,
    plain_dev: CUdeviceptr,
    cipher_dev: CUdeviceptr,
    capacity: usize,
    nonce: u64,
}

impl TxPath {
    pub fn new(ctx: Arc<CudaContext>, capacity: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let xor = ctx.load_module(compile_ptx(XOR_SRC)?)?.load_function("keystream_xor")?;
        let (staging, plain_dev, cipher_dev) = unsafe {
            (result::malloc_host(capacity, 0)? as *mut u8, result::malloc_sync(capacity)?, result::malloc_sync(capacity)?)
        };
        Ok(Self { ctx, stream, xor, staging, plain_dev, cipher_dev, capacity, nonce: 0 })
    }

    /// Encrypts each batch on the GPU; the ciphertext stays on the device for the NIC.
    pub fn send_batches(&mut self, batches: &[Vec<u8>]) -> Result<usize, DriverError> {
        let staging = unsafe { std::slice::from_raw_parts_mut(self.staging, self.capacity) };
        let mut sent = 0;
        for batch in batches {
            let n = batch.len().min(self.capacity);
            staging[..n].copy_from_slice(&batch[..n]); // EXPECT: missing_sync
            unsafe { result::memcpy_htod_async(self.plain_dev, &staging[..n], self.stream.cu_stream())? };
            let (nonce, n32) = (self.nonce, n as u32);
            unsafe {
                self.stream
                    .launch_builder(&self.xor)
                    .arg(&self.plain_dev)
                    .arg(&self.cipher_dev)
                    .arg(&nonce)
                    .arg(&n32)
                    .launch(LaunchConfig::for_num_elems(n32))?
            };
            self.nonce = self.nonce.wrapping_add(n as u64);
            sent += n;
        }
        self.stream.synchronize()?;
        Ok(sent)
    }
}

impl Drop for TxPath {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        let _ = self.ctx.bind_to_thread();
        unsafe {
            let _ = result::free_host(self.staging.cast());
            let _ = result::free_sync(self.plain_dev);
            let _ = result::free_sync(self.cipher_dev);
        }
    }
}
