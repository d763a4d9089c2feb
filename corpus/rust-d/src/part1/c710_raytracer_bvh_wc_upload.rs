//! case: a ray tracer uploads its BVH through cudarc's write-combined `alloc_pinned` staging buffer (the host only writes it) and reads hit counts back through pinned memory allocated with flags 0, after synchronizing
//! expect: none

use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DeviceRepr, DriverError, LaunchConfig,
    PinnedHostSlice, PushKernelArg, ValidAsZeroBits,
};
use cudarc::nvrtc::compile_ptx;

const COUNT_HITS_CU: &str = r#"
struct Node { float lo[3]; float hi[3]; int left; int right_or_prim; };
extern "C" __global__ void count_hits(const Node* nodes, int n_nodes, const float* rays, int n_rays,
                                      unsigned int* hits) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n_rays) return;
    const float* o = rays + r * 6; const float* d = o + 3;
    int stack[32]; int sp = 0; stack[sp++] = 0; unsigned int count = 0;
    while (sp > 0) {
        Node nd = nodes[stack[--sp]];
        float t0 = 0.f, t1 = 1e30f;
        for (int a = 0; a < 3; ++a) {
            float inv = 1.f / d[a];
            float ta = (nd.lo[a] - o[a]) * inv, tb = (nd.hi[a] - o[a]) * inv;
            t0 = fmaxf(t0, fminf(ta, tb)); t1 = fminf(t1, fmaxf(ta, tb));
        }
        if (t0 > t1) continue;
        if (nd.left < 0) { count++; continue; }
        if (sp < 31) { stack[sp++] = nd.left; stack[sp++] = nd.right_or_prim; }
    }
    hits[r] = count;
}
"#;

#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
pub struct BvhNode {
    pub lo: [f32; 3],
    pub hi: [f32; 3],
    pub left: i32,
    pub right_or_prim: i32,
}
unsafe impl DeviceRepr for BvhNode {}
unsafe impl ValidAsZeroBits for BvhNode {}

/// Uploads through a staging buffer the host writes but never reads.
pub struct Uploader<T: DeviceRepr + ValidAsZeroBits + Copy> {
    staging: PinnedHostSlice<T>,
}

impl<T: DeviceRepr + ValidAsZeroBits + Copy> Uploader<T> {
    pub fn new(ctx: &Arc<CudaContext>, capacity: usize) -> Result<Self, DriverError> {
        Ok(Self { staging: unsafe { ctx.alloc_pinned::<T>(capacity)? } })
    }

    pub fn upload(&mut self, stream: &Arc<CudaStream>, items: &[T], dst: &mut CudaSlice<T>) -> Result<(), DriverError> {
        let n = items.len().min(self.staging.len());
        self.staging.as_mut_slice()?[..n].copy_from_slice(&items[..n]);
        stream.memcpy_htod(&self.staging, dst)?;
        // The staging buffer is rewritten by the next upload: wait for this one first.
        stream.synchronize()
    }
}

pub struct HitCounter {
    stream: Arc<CudaStream>,
    count_hits: CudaFunction,
    nodes: CudaSlice<BvhNode>,
    n_nodes: i32,
    hits_dev: CudaSlice<u32>,
    hits_host: PinnedHostSlice<u32>,
}

impl HitCounter {
    pub fn build(ctx: &Arc<CudaContext>, bvh: &[BvhNode], max_rays: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        let count_hits = ctx.load_module(compile_ptx(COUNT_HITS_CU)?)?.load_function("count_hits")?;
        let mut nodes = stream.alloc_zeros::<BvhNode>(bvh.len())?;
        Uploader::<BvhNode>::new(ctx, bvh.len())?.upload(&stream, bvh, &mut nodes)?;
        let hits_dev = stream.alloc_zeros::<u32>(max_rays)?;
        let hits_host = unsafe { ctx.alloc_pinned_with_flags::<u32>(max_rays, 0)? };
        Ok(Self { stream, count_hits, nodes, n_nodes: bvh.len() as i32, hits_dev, hits_host })
    }

    pub fn histogram(&mut self, rays: &CudaSlice<f32>) -> Result<[usize; 8], DriverError> {
        let n_rays = (rays.len() / 6).min(self.hits_dev.len()) as i32;
        let cfg = LaunchConfig::for_num_elems(n_rays as u32);
        unsafe {
            self.stream
                .launch_builder(&self.count_hits)
                .arg(&self.nodes)
                .arg(&self.n_nodes)
                .arg(rays)
                .arg(&n_rays)
                .arg(&mut self.hits_dev)
                .launch(cfg)?;
        }
        self.stream.memcpy_dtoh(&self.hits_dev, &mut self.hits_host)?;
        self.stream.synchronize()?;
        let mut bins = [0usize; 8];
        self.hits_host.as_slice()?[..n_rays as usize]
            .iter()
            .for_each(|&h| bins[(h as usize).min(7)] += 1);
        Ok(bins)
    }
}
