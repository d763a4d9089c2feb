//! case: cloth simulation on the runtime API keeps its tunables in cudaMallocManaged memory (attach global) read by the constraint kernel; the host edits them for the next frame while the integrate kernel, which does not use them, is still running
//! expect: managed_concurrent_access=1
use cudarc::driver::result as drv;
use cudarc::driver::sys as dsys;
use cudarc::runtime::sys as rt;
use std::ffi::{CString, c_void};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

#[repr(C)]
pub struct ClothConfig {
    pub stiffness: f32,
    pub damping: f32,
    pub rest_len: f32,
    pub iterations: u32,
}

const CLOTH_SRC: &str = r#"
struct ClothConfig { float stiffness, damping, rest_len; unsigned int iterations; };
extern "C" __global__ void integrate(float3* pos, float3* prev, unsigned int n, float dt) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 p = pos[i], q = prev[i];
    float3 v = make_float3(p.x - q.x, p.y - q.y - 9.81f * dt * dt, p.z - q.z);
    prev[i] = p;
    pos[i] = make_float3(p.x + v.x, p.y + v.y, p.z + v.z);
}
extern "C" __global__ void constrain(float3* pos, const unsigned int* edges, unsigned int m, const ClothConfig* cfg) {
    unsigned int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= m) return;
    unsigned int a = edges[2 * e], b = edges[2 * e + 1];
    float3 pa = pos[a], pb = pos[b];
    float dx = pb.x - pa.x, dy = pb.y - pa.y, dz = pb.z - pa.z;
    float len = sqrtf(dx * dx + dy * dy + dz * dz) + 1e-6f;
    float k = cfg->stiffness * 0.5f * (len - cfg->rest_len) / len;
    atomicAdd(&pos[a].x, k * dx); atomicAdd(&pos[a].y, k * dy); atomicAdd(&pos[a].z, k * dz);
    atomicAdd(&pos[b].x, -k * dx); atomicAdd(&pos[b].y, -k * dy); atomicAdd(&pos[b].z, -k * dz);
}
"#;

pub struct Cloth {
    stream: rt::cudaStream_t,
    integrate: dsys::CUfunction,
    constrain: dsys::CUfunction,
    cfg: *mut ClothConfig,
    pos: *mut c_void,
    prev: *mut c_void,
    edges: *mut c_void,
    n: u32,
    m: u32,
}

impl Cloth {
    pub fn new(n: u32, edges: &[u32]) -> Res<Self> {
        unsafe { rt::cudaSetDevice(0) }.result()?;
        drv::init()?;
        let ctx = unsafe { drv::primary_ctx::retain(drv::device::get(0)?) }?;
        unsafe { drv::ctx::set_current(ctx) }?;
        let image = CString::new(cudarc::nvrtc::compile_ptx(CLOTH_SRC)?.to_src())?;
        let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
        let integrate = unsafe { drv::module::get_function(module, CString::new("integrate")?) }?;
        let constrain = unsafe { drv::module::get_function(module, CString::new("constrain")?) }?;

        let mut stream = std::ptr::null_mut();
        let mut cfg: *mut c_void = std::ptr::null_mut();
        let (mut pos, mut prev, mut d_edges) = (std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut());
        unsafe {
            rt::cudaStreamCreateWithFlags(&mut stream, rt::cudaStreamNonBlocking).result()?;
            rt::cudaMallocManaged(&mut cfg, std::mem::size_of::<ClothConfig>(), rt::cudaMemAttachGlobal).result()?;
            cfg.cast::<ClothConfig>().write(ClothConfig { stiffness: 0.8, damping: 0.02, rest_len: 0.01, iterations: 4 });
            rt::cudaMalloc(&mut pos, n as usize * 12).result()?;
            rt::cudaMalloc(&mut prev, n as usize * 12).result()?;
            rt::cudaMalloc(&mut d_edges, std::mem::size_of_val(edges)).result()?;
            rt::cudaMemcpy(d_edges, edges.as_ptr().cast(), std::mem::size_of_val(edges), rt::cudaMemcpyKind::cudaMemcpyHostToDevice).result()?;
            rt::cudaMemset(pos, 0, n as usize * 12).result()?;
            rt::cudaMemset(prev, 0, n as usize * 12).result()?;
            // The setup above ran on the legacy stream; the simulation stream does not wait for it.
            rt::cudaDeviceSynchronize().result()?;
        }
        Ok(Cloth { stream, integrate, constrain, cfg: cfg.cast(), pos, prev, edges: d_edges, n, m: (edges.len() / 2) as u32 })
    }

    fn launch(&self, f: dsys::CUfunction, count: u32, params: &mut [*mut c_void]) -> Res<()> {
        unsafe { drv::launch_kernel(f, (count.div_ceil(256), 1, 1), (256, 1, 1), 0, self.stream as dsys::CUstream, params) }?;
        Ok(())
    }

    pub fn frame(&mut self, dt: f32, wind: f32) -> Res<()> {
        let (mut pos, mut prev, mut n, mut d) = (self.pos as u64, self.prev as u64, self.n, dt);
        let mut p_int: [*mut c_void; 4] = [
            (&mut pos as *mut u64).cast(),
            (&mut prev as *mut u64).cast(),
            (&mut n as *mut u32).cast(),
            (&mut d as *mut f32).cast(),
        ];
        self.launch(self.integrate, self.n, &mut p_int)?;

        // Tune the constraints for this frame's wind while the integrator runs.
        unsafe { (*self.cfg).stiffness = (0.8 - 0.1 * wind).clamp(0.2, 1.0) }; // EXPECT: managed_concurrent_access

        unsafe { rt::cudaStreamSynchronize(self.stream) }.result()?;
        let iterations = unsafe { (*self.cfg).iterations };
        let (mut edges, mut m, mut cfg) = (self.edges as u64, self.m, self.cfg as u64);
        for _ in 0..iterations {
            let mut p_con: [*mut c_void; 4] = [
                (&mut pos as *mut u64).cast(),
                (&mut edges as *mut u64).cast(),
                (&mut m as *mut u32).cast(),
                (&mut cfg as *mut u64).cast(),
            ];
            self.launch(self.constrain, self.m, &mut p_con)?;
        }
        unsafe { rt::cudaStreamSynchronize(self.stream) }.result()?;
        Ok(())
    }
}

impl Drop for Cloth {
    fn drop(&mut self) {
        unsafe {
            rt::cudaStreamSynchronize(self.stream);
            rt::cudaFree(self.cfg.cast());
            rt::cudaFree(self.pos);
            rt::cudaFree(self.prev);
            rt::cudaFree(self.edges);
            rt::cudaStreamDestroy(self.stream);
        }
    }
}
