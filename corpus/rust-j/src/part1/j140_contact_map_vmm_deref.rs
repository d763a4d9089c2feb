//! case: protein contact-map builder writes its bit matrix into a VMM mapping (runtime layer) and, when dumping a PyMOL script, builds a host slice from the mapping's device address after synchronizing, as if the mapping were host memory
//! expect: host_deref_device_ptr=1

use std::fmt::Write as _;

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

const CONTACT_SRC: &str = r#"
extern "C" __global__ void contacts(const float* ca, int residues, float cutoff2, unsigned char* map) {
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= residues || j >= residues) return;
    float dx = ca[3*i] - ca[3*j], dy = ca[3*i+1] - ca[3*j+1], dz = ca[3*i+2] - ca[3*j+2];
    map[i * residues + j] = (dx*dx + dy*dy + dz*dz) < cutoff2 ? 1 : 0;
}
"#;

pub struct ContactMapper {
    stream: Stream,
    kernel: Kernel,
    _mem: PhysicalAllocation,
    map: Mapping,
    residues: usize,
}

impl ContactMapper {
    pub fn new(ctx: &Context, residues: usize) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let bytes = (residues * residues).div_ceil(gran) * gran;
        let mem = PhysicalAllocation::new(ctx, bytes)?;
        let map = VirtualRange::reserve(ctx, bytes)?.map(&mem, 0)?;
        Ok(Self { stream: ctx.new_stream()?, kernel: ctx.load_cuda(CONTACT_SRC)?.function("contacts")?, _mem: mem, map, residues })
    }

    pub fn pymol_script(&mut self, ca: &DeviceBuffer<f32>, cutoff: f32, chain: char) -> Result<String> {
        let n = self.residues as i32;
        let cut2 = cutoff * cutoff;
        let cfg = LaunchConfig {
            grid: ((self.residues as u32).div_ceil(16), (self.residues as u32).div_ceil(16), 1),
            block: (16, 16, 1),
            shared_mem_bytes: 0,
        };
        self.stream.memset_d8_async(&mut self.map, 0)?;
        unsafe { self.stream.launch(&self.kernel, cfg, &[ca, &n, &cut2, &self.map])? };
        self.stream.synchronize()?;

        let bits = unsafe { std::slice::from_raw_parts(self.map.device_ptr().as_raw() as *const u8, self.residues * self.residues) }; // EXPECT: host_deref_device_ptr
        let mut script = String::new();
        for i in 0..self.residues {
            for j in (i + 4)..self.residues {
                if bits[i * self.residues + j] != 0 {
                    let _ = writeln!(script, "distance c{i}_{j}, /{chain}/{}/CA, /{chain}/{}/CA", i + 1, j + 1);
                }
            }
        }
        Ok(script)
    }
}
