//! case: cellular-automaton simulator keeps its rule table in a `__constant__` module global found with cuModuleGetGlobal; the simulator's Drop "releases" that global with cuMemFree along with its real cuMemAlloc grids
//! expect: mismatched_free=1

use std::ffi::{c_void, CString};

use cudarc::driver::{sys, DriverError};
use cudarc::nvrtc::compile_ptx;

const LIFE_SRC: &str = r#"
__constant__ unsigned char rule_table[18];   // [birth 0..8][survive 0..8]
extern "C" __global__ void life_step(const unsigned char* cur, unsigned char* next, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= w || y >= h) return;
    int n = 0;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
            if (dx || dy) n += cur[((y + dy + h) % h) * w + (x + dx + w) % w];
    int alive = cur[y * w + x];
    next[y * w + x] = rule_table[alive ? 9 + n : n];
}
"#;

/// "B3/S23" style rule strings.
pub fn parse_rule(rule: &str) -> Option<[u8; 18]> {
    let (b, s) = rule.split_once('/')?;
    let mut table = [0u8; 18];
    for c in b.strip_prefix('B')?.chars() {
        table[c.to_digit(10)? as usize] = 1;
    }
    for c in s.strip_prefix('S')?.chars() {
        table[9 + c.to_digit(10)? as usize] = 1;
    }
    Some(table)
}

pub struct Automaton {
    module: sys::CUmodule,
    step: sys::CUfunction,
    rules: sys::CUdeviceptr,
    grids: [sys::CUdeviceptr; 2],
    width: usize,
    height: usize,
    current: usize,
}

impl Automaton {
    /// Needs a current context (the caller's).
    pub fn new(rule: &str, width: usize, height: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let table = parse_rule(rule).ok_or("bad rule string")?;
        let image = CString::new(compile_ptx(LIFE_SRC)?.to_src())?;
        let mut module = std::ptr::null_mut();
        let mut step = std::ptr::null_mut();
        let (mut rules, mut rules_bytes) = (0, 0usize);
        let mut grids = [0; 2];
        unsafe {
            sys::cuModuleLoadData(&mut module, image.as_ptr() as *const c_void).result()?;
            sys::cuModuleGetFunction(&mut step, module, c"life_step".as_ptr()).result()?;
            sys::cuModuleGetGlobal_v2(&mut rules, &mut rules_bytes, module, c"rule_table".as_ptr()).result()?;
            sys::cuMemcpyHtoD_v2(rules, table.as_ptr() as *const c_void, rules_bytes.min(table.len())).result()?;
            for g in grids.iter_mut() {
                sys::cuMemAlloc_v2(g, width * height).result()?;
                sys::cuMemsetD8_v2(*g, 0, width * height).result()?;
            }
            // the legacy-stream copy and memsets must land before work on any other stream
            sys::cuCtxSynchronize().result()?;
        }
        Ok(Automaton { module, step, rules, grids, width, height, current: 0 })
    }

    pub fn advance(&mut self, stream: sys::CUstream, generations: usize) -> Result<(), DriverError> {
        let (mut w, mut h) = (self.width as i32, self.height as i32);
        for _ in 0..generations {
            let (mut cur, mut next) = (self.grids[self.current], self.grids[1 - self.current]);
            let mut params = [
                &mut cur as *mut u64 as *mut c_void,
                &mut next as *mut u64 as *mut c_void,
                &mut w as *mut i32 as *mut c_void,
                &mut h as *mut i32 as *mut c_void,
            ];
            unsafe {
                sys::cuLaunchKernel(self.step, (self.width as u32).div_ceil(128), self.height as u32, 1, 128, 1, 1, 0, stream, params.as_mut_ptr(), std::ptr::null_mut()).result()?;
            }
            self.current = 1 - self.current;
        }
        Ok(())
    }
}

impl Drop for Automaton {
    fn drop(&mut self) {
        unsafe {
            sys::cuCtxSynchronize();
            for g in self.grids {
                sys::cuMemFree_v2(g);
            }
            sys::cuMemFree_v2(self.rules); // EXPECT: mismatched_free
            sys::cuModuleUnload(self.module);
        }
    }
}
