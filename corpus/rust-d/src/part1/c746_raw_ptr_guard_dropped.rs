//! case: an optical-flow stage passes its output to the kernel as a raw device pointer taken with `device_ptr_mut(..).0`, so the guard that records cudarc's write event drops (recording it) before the launch; the copy stream's `memcpy_dtoh` then waits on an event that does not cover the kernel and copies the flow field while it is being written
//! expect: missing_sync=1

use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtrMut, DriverError, LaunchConfig,
    PinnedHostSlice, PushKernelArg,
};
use cudarc::driver::sys::CUdeviceptr;
use cudarc::nvrtc::compile_ptx;

const FLOW_CU: &str = r#"
extern "C" __global__ void block_match(const unsigned char* prev, const unsigned char* next,
                                       int width, int height, float2* flow) {
    int bx = blockIdx.x * blockDim.x + threadIdx.x, by = blockIdx.y;
    int bw = width / 8;
    if (bx >= bw || by >= height / 8) return;
    int best = 1 << 30; float2 v = make_float2(0.f, 0.f);
    for (int dy = -4; dy <= 4; ++dy)
        for (int dx = -4; dx <= 4; ++dx) {
            int sad = 0;
            for (int y = 0; y < 8; ++y)
                for (int x = 0; x < 8; ++x) {
                    int px = min(max(bx * 8 + x + dx, 0), width - 1), py = min(max(by * 8 + y + dy, 0), height - 1);
                    sad += abs((int)prev[(by * 8 + y) * width + bx * 8 + x] - (int)next[py * width + px]);
                }
            if (sad < best) { best = sad; v = make_float2((float)dx, (float)dy); }
        }
    flow[by * bw + bx] = v;
}
"#;

pub struct FlowStage {
    compute: Arc<CudaStream>,
    copy: Arc<CudaStream>,
    block_match: CudaFunction,
    flow: CudaSlice<f32>,
    flow_host: PinnedHostSlice<f32>,
    width: i32,
    height: i32,
}

impl FlowStage {
    pub fn new(ctx: &Arc<CudaContext>, width: i32, height: i32) -> Result<Self, Box<dyn std::error::Error>> {
        let compute = ctx.new_stream()?;
        let copy = ctx.new_stream()?;
        let block_match = ctx.load_module(compile_ptx(FLOW_CU)?)?.load_function("block_match")?;
        let blocks = (width / 8 * (height / 8)) as usize;
        let flow = compute.alloc_zeros::<f32>(2 * blocks)?;
        let flow_host = unsafe { ctx.alloc_pinned_with_flags::<f32>(2 * blocks, 0)? };
        Ok(Self { compute, copy, block_match, flow, flow_host, width, height })
    }

    pub fn estimate(&mut self, prev: &CudaSlice<u8>, next: &CudaSlice<u8>) -> Result<Vec<(f32, f32)>, DriverError> {
        let flow_ptr: CUdeviceptr = self.flow.device_ptr_mut(&self.compute).0;
        let cfg = LaunchConfig {
            grid_dim: ((self.width as u32 / 8).div_ceil(32), self.height as u32 / 8, 1),
            block_dim: (32, 1, 1),
            shared_mem_bytes: 0,
        };
        unsafe {
            self.compute
                .launch_builder(&self.block_match)
                .arg(prev)
                .arg(next)
                .arg(&self.width)
                .arg(&self.height)
                .arg(&flow_ptr)
                .launch(cfg)?;
        }
        self.copy.memcpy_dtoh(&self.flow, &mut self.flow_host)?; // EXPECT: missing_sync
        Ok(self.flow_host.as_slice()?.chunks_exact(2).map(|v| (v[0], v[1])).collect())
    }
}
