//! case: a weight shard is loaded into a VMM mapping (runtime layer) and a load-time integrity check reads the shard's header word with `ptr::read_unaligned` on the mapping's device address from host code
//! expect: host_deref_device_ptr=1

use std::ffi::c_void;

use cuda_lint_runtime::{Context, DeviceMemory, Error, Mapping, PhysicalAllocation, PinnedBuffer, Result, Stream, VirtualRange};
use cudarc::driver::sys;

pub const SHARD_MAGIC: u64 = 0x5348_4152_4430_3031; // "SHARD001"

pub struct Shard {
    pub mapping: Mapping,
    pub bytes: usize,
}

/// Copies `payload` (already in pinned memory) into a fresh VMM mapping.
fn place(ctx: &Context, stream: &Stream, payload: &PinnedBuffer<u8>) -> Result<Shard> {
    let gran = ctx.vmm_granularity()?;
    let bytes = payload.len().div_ceil(gran) * gran;
    let phys = PhysicalAllocation::new(ctx, bytes)?;
    let mut mapping = VirtualRange::reserve(ctx, bytes)?.map(&phys, 0)?;
    stream.memset_d8_async(&mut mapping, 0)?;
    // The runtime layer copies only into DeviceBuffers: go through the driver for the mapping.
    let rc = unsafe {
        sys::cuMemcpyHtoDAsync_v2(mapping.device_ptr().as_raw(), payload.as_ptr() as *const c_void, payload.len(), stream.as_raw())
    };
    if rc != sys::CUresult::CUDA_SUCCESS {
        return Err(Error::InvalidArgument { call: "cuMemcpyHtoDAsync_v2", reason: format!("{rc:?}") });
    }
    stream.synchronize()?;
    Ok(Shard { mapping, bytes })
}

pub fn load_shard(ctx: &Context, payload: &PinnedBuffer<u8>) -> Result<Shard> {
    let stream = ctx.new_stream()?;
    let shard = place(ctx, &stream, payload)?;

    let header = shard.mapping.device_ptr().as_raw() as *const u64;
    let magic = unsafe { std::ptr::read_unaligned(header) }; // EXPECT: host_deref_device_ptr
    if magic != SHARD_MAGIC {
        eprintln!("shard header {magic:#x} does not match {SHARD_MAGIC:#x}");
    }
    println!("loaded shard: {} bytes mapped ({} bytes of device memory)", payload.len(), shard.mapping.num_bytes());
    Ok(shard)
}
