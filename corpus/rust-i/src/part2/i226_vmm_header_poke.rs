//! case: cross-process GPU message queue (runtime crate VMM): after mapping the queue's physical allocation, the constructor stamps the queue header by writing through the mapping's raw device address from the host
//! expect: host_deref_device_ptr=1

use cuda_lint_runtime::{Context, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

pub const QUEUE_MAGIC: u32 = 0x5155_4531; // "QUE1"
pub const HEADER_WORDS: usize = 16;

#[derive(Debug, Clone, Copy)]
pub struct QueueGeometry {
    pub slots: u32,
    pub slot_bytes: u32,
}

pub struct GpuQueue {
    mapping: Mapping,
    physical: PhysicalAllocation,
    geometry: QueueGeometry,
}

impl GpuQueue {
    pub fn create(ctx: &Context, stream: &Stream, geometry: QueueGeometry) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let payload = geometry.slots as usize * geometry.slot_bytes as usize;
        let size = (HEADER_WORDS * 4 + payload).div_ceil(gran) * gran;
        let physical = PhysicalAllocation::new(ctx, size)?;
        let mut mapping = VirtualRange::reserve(ctx, size)?.map(&physical, 0)?;
        stream.memset_d32(&mut mapping, 0)?;

        // Header: magic, version, slots, slot size; head and tail start at zero.
        let header = mapping.device_ptr().as_raw() as *mut u32;
        unsafe {
            header.write(QUEUE_MAGIC); // EXPECT: host_deref_device_ptr
            header.add(1).write(1);
            header.add(2).write(geometry.slots);
            header.add(3).write(geometry.slot_bytes);
        }
        Ok(GpuQueue { mapping, physical, geometry })
    }

    pub fn device_base(&self) -> u64 {
        self.mapping.device_ptr().as_raw()
    }

    pub fn slot_address(&self, slot: u32) -> u64 {
        self.device_base() + (HEADER_WORDS * 4) as u64 + (slot % self.geometry.slots) as u64 * self.geometry.slot_bytes as u64
    }

    pub fn physical_id(&self) -> u64 {
        self.physical.id()
    }
}
