//! case: a shard exporter hands device buffers to a C consumer as raw `CUdeviceptr`s via `CudaSlice::leak`; before handing one out it computes a checksum by viewing the leaked device address as a host slice (after the stream was synchronized), then frees it properly with `cuMemFree`
//! expect: host_deref_device_ptr=1

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{result, CudaContext, CudaFunction, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SHARD_SRC: &str = r#"
extern "C" __global__ void fill_shard(unsigned int* words, unsigned int n, unsigned int shard)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) words[i] = (shard * 0x9E3779B9u) ^ (i * 0x85EBCA6Bu);
}
"#;

/// What the C side receives.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ShardDesc {
    pub ptr: CUdeviceptr,
    pub words: usize,
    pub checksum: u32,
}

pub struct ShardExporter {
    stream: Arc<CudaStream>,
    fill: CudaFunction,
}

impl ShardExporter {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn Error>> {
        Ok(Self {
            stream: ctx.new_stream()?,
            fill: ctx.load_module(compile_ptx(SHARD_SRC)?)?.load_function("fill_shard")?,
        })
    }

    pub fn export(&self, shard: u32, words: usize) -> Result<ShardDesc, Box<dyn Error>> {
        let mut buf = self.stream.alloc_zeros::<u32>(words)?;
        let n = words as u32;
        unsafe {
            self.stream.launch_builder(&self.fill).arg(&mut buf).arg(&n).arg(&shard).launch(LaunchConfig::for_num_elems(n))?;
        }
        self.stream.synchronize()?;
        let ptr = buf.leak();
        let checksum = unsafe { std::slice::from_raw_parts(ptr as *const u32, words) } // EXPECT: host_deref_device_ptr
            .iter()
            .fold(0u32, |acc, &w| acc.rotate_left(5) ^ w);
        Ok(ShardDesc { ptr, words, checksum })
    }

    /// Called back by the consumer when it is done with a shard.
    pub fn release(&self, desc: ShardDesc) -> Result<(), Box<dyn Error>> {
        self.stream.synchronize()?;
        unsafe { result::free_sync(desc.ptr)? };
        Ok(())
    }
}

pub fn run() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let exporter = ShardExporter::new(&ctx)?;
    let shards: Vec<ShardDesc> = (0..4).map(|s| exporter.export(s, 1 << 18)).collect::<Result<_, _>>()?;
    for d in &shards {
        println!("shard at {:#x}: {} words, checksum {:08x}", d.ptr, d.words, d.checksum);
    }
    shards.into_iter().try_for_each(|d| exporter.release(d))
}
