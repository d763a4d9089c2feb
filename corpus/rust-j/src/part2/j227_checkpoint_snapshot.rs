//! case: storage engine checkpoint compacts the device-resident memtable with a kernel on a runtime-layer stream (created non-blocking) and then snapshots it with cudarc's blocking `result::memcpy_dtoh_sync` (cuMemcpyDtoH on the legacy default stream, which does not wait for non-blocking streams): the snapshot races the compaction kernel
//! expect: missing_sync=1

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Stream};
use cudarc::driver::result;

const MEMTABLE_SRC: &str = r#"
extern "C" __global__ void compact_memtable(unsigned long long* slots, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long v = slots[i];
    // clear tombstoned entries (top bit) so the snapshot only holds live rows
    if (v >> 63) slots[i] = 0ull;
}
"#;

pub struct Memtable {
    ctx: Context,
    stream: Stream,
    compact: Kernel,
    slots: DeviceBuffer<u64>,
    generation: u64,
}

impl Memtable {
    pub fn new(ctx: &Context, capacity: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let compact = ctx.load_cuda(MEMTABLE_SRC)?.function("compact_memtable")?;
        Ok(Self { ctx: ctx.clone(), stream: ctx.new_stream()?, compact, slots: ctx.alloc_zeroed::<u64>(capacity)?, generation: 0 })
    }

    fn compact_async(&self) -> cuda_lint_runtime::Result<()> {
        let n = self.slots.len() as u32;
        unsafe { self.stream.launch(&self.compact, LaunchConfig::for_num_elems(n), &[&self.slots, &n]) }
    }

    pub fn checkpoint(&mut self, dir: &Path) -> Result<usize, Box<dyn std::error::Error>> {
        self.compact_async()?;
        self.ctx.bind_to_thread()?;
        let mut snapshot = vec![0u64; self.slots.len()];
        unsafe { result::memcpy_dtoh_sync(&mut snapshot, self.slots.device_ptr().as_raw()) }?; // EXPECT: missing_sync
        self.generation += 1;
        let path = dir.join(format!("memtable-{:08}.ckpt", self.generation));
        let mut w = BufWriter::new(File::create(path)?);
        let mut live = 0;
        for v in snapshot.iter().filter(|&&v| v != 0) {
            w.write_all(&v.to_le_bytes())?;
            live += 1;
        }
        w.flush()?;
        self.stream.synchronize()?;
        Ok(live)
    }
}
