//! case: a lookup table kept in OnceLock statics (cudarc context, stream, table); debug_dump() reads the first entry with ptr::read on the table's device pointer, dump() copies it into cached pinned memory
//! expect: host_deref_device_ptr=1
use std::sync::{Arc, OnceLock};

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr, DriverError};

struct Lut {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    table: CudaSlice<u32>,
}

static LUT: OnceLock<Lut> = OnceLock::new();

fn lut() -> &'static Lut {
    LUT.get_or_init(|| {
        let ctx = CudaContext::new(0).expect("no CUDA device");
        let stream = ctx.new_stream().expect("stream");
        let table = stream.alloc_zeros::<u32>(4096).expect("table");
        Lut { ctx, stream, table }
    })
}

pub fn debug_dump() -> u32 {
    let l = lut();
    let (ptr, _guard) = l.table.device_ptr(&l.stream);
    l.stream.synchronize().expect("sync");
    unsafe { std::ptr::read(ptr as *const u32) } // EXPECT: host_deref_device_ptr
}

pub fn dump() -> Result<Vec<u32>, DriverError> {
    let l = lut();
    // SAFETY: written by the copy below before any read. Flags 0: cached memory.
    let mut host = unsafe { l.ctx.alloc_pinned_with_flags::<u32>(l.table.len(), 0)? };
    l.stream.memcpy_dtoh(&l.table, &mut host)?;
    Ok(host.as_slice()?.to_vec())
}
