//! case: a command queue lives in cudarc managed memory allocated attached to the host (`alloc_unified(len, false)`, CU_MEM_ATTACH_HOST); the host encodes the next frame's commands into it while the previous frame's kernel (which never touches the queue) runs on the compute stream
//! expect: none

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

pub const MAX_COMMANDS: usize = 4096;

const EXEC_SRC: &str = r#"
extern "C" __global__ void execute(const unsigned* cmds, unsigned ncmds, float* state, unsigned nstate) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= ncmds) return;
    unsigned op = cmds[i] >> 24, slot = cmds[i] & 0xffffff;
    if (slot >= nstate) return;
    if (op == 1) atomicAdd(&state[slot], 1.0f);
    else if (op == 2) state[slot] = 0.0f;
}
"#;

#[derive(Clone, Copy)]
pub enum Command {
    Bump(u32),
    Reset(u32),
}

impl Command {
    fn encode(self) -> u32 {
        match self {
            Command::Bump(slot) => (1 << 24) | (slot & 0xff_ffff),
            Command::Reset(slot) => (2 << 24) | (slot & 0xff_ffff),
        }
    }
}

pub struct Executor {
    copy: Arc<CudaStream>,
    compute: Arc<CudaStream>,
    exec: CudaFunction,
    queue: UnifiedSlice<u32>,
    cmds_dev: CudaSlice<u32>,
    state: CudaSlice<f32>,
}

impl Executor {
    pub fn new(ctx: &Arc<CudaContext>, nstate: usize) -> Result<Self, Box<dyn Error>> {
        let copy = ctx.new_stream()?;
        let compute = ctx.new_stream()?;
        Ok(Self {
            exec: ctx.load_module(compile_ptx(EXEC_SRC)?)?.load_function("execute")?,
            // Host-attached: kernels on other streams do not take this memory away from the CPU.
            queue: unsafe { ctx.alloc_unified::<u32>(MAX_COMMANDS, false)? },
            cmds_dev: compute.alloc_zeros::<u32>(MAX_COMMANDS)?,
            state: compute.alloc_zeros::<f32>(nstate)?,
            copy,
            compute,
        })
    }

    /// Encodes `cmds` on the host while the previous frame may still execute, then submits them.
    pub fn submit(&mut self, cmds: &[Command]) -> Result<(), Box<dyn Error>> {
        let n = cmds.len().min(MAX_COMMANDS);
        let queue = self.queue.as_mut_slice()?;
        for (dst, c) in queue.iter_mut().zip(&cmds[..n]) {
            *dst = c.encode();
        }

        let mut dst = self.cmds_dev.slice_mut(..n);
        self.copy.memcpy_htod(&self.queue.slice(..n), &mut dst)?;
        let (ncmds, nstate) = (n as u32, self.state.len() as u32);
        unsafe {
            self.compute
                .launch_builder(&self.exec)
                .arg(&self.cmds_dev)
                .arg(&ncmds)
                .arg(&mut self.state)
                .arg(&nstate)
                .launch(LaunchConfig::for_num_elems(ncmds.max(1)))?;
        }
        Ok(())
    }

    pub fn finish(&self) -> Result<(), Box<dyn Error>> {
        self.compute.synchronize()?;
        Ok(())
    }
}
