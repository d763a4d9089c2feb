use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Result, Stream};

pub(super) const JOIN_SRC: &str = r#"
#define EMPTY 0xffffffffffffffffull
extern "C" __global__ void build_table(unsigned long long* table, const unsigned long long* keys, unsigned n, unsigned cap) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned s = (unsigned)(keys[i] % cap);
    while (atomicCAS(&table[s], EMPTY, keys[i]) != EMPTY) s = (s + 1) % cap;
}
extern "C" __global__ void probe_table(const unsigned long long* table, const unsigned long long* keys, unsigned* pairs,
                                       unsigned* count, unsigned n, unsigned cap) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned s = (unsigned)(keys[i] % cap);
    for (unsigned step = 0; step < cap && table[s] != EMPTY; ++step, s = (s + 1) % cap)
        if (table[s] == keys[i]) { pairs[atomicAdd(count, 1u)] = i; break; }
}
"#;

pub struct BuildSide {
    kernel: Kernel,
    keys_dev: DeviceBuffer<u64>,
    table: DeviceBuffer<u64>,
    pub(super) cap: u32,
    pub(super) len: usize,
}

impl BuildSide {
    pub fn new(ctx: &Context, max_build: usize) -> Result<Self> {
        let cap = (max_build * 2).next_power_of_two();
        Ok(Self {
            kernel: ctx.load_cuda(JOIN_SRC)?.function("build_table")?,
            keys_dev: ctx.alloc::<u64>(max_build)?,
            table: ctx.alloc::<u64>(cap)?,
            cap: cap as u32,
            len: 0,
        })
    }

    pub fn table(&self) -> &DeviceBuffer<u64> {
        &self.table
    }

    pub fn build(&mut self, stream: &Stream, keys: &Vec<u64>) -> Result<()> {
        let mut padded = keys.clone();
        padded.resize(self.keys_dev.len(), u64::MAX);
        stream.memset_d8_async(&mut self.table, 0xff)?;
        unsafe { stream.copy_htod_async(&mut self.keys_dev, &padded)? }; // EXPECT: pageable_async_copy
        let n = keys.len() as u32;
        unsafe { stream.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[&self.table, &self.keys_dev, &n, &self.cap])? };
        self.len = keys.len();
        Ok(())
    }
}
