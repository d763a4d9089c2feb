//! case: robot-arm IK controller keeps joint targets and solved angles in managed memory used by the IK kernel; the control loop reads the solution and writes the next targets only after `ctx.synchronize()`, inside a closure called after the wait
//! expect: none

use cuda_lint_runtime::{Context, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

const IK_SRC: &str = r#"
extern "C" __global__ void ccd_ik(const float* target, float* angles, const float* link_len, int joints, int iters) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    for (int it = 0; it < iters; ++it) {
        for (int j = joints - 1; j >= 0; --j) {
            float x = 0, y = 0, a = 0, jx = 0, jy = 0;
            for (int k = 0; k < joints; ++k) {
                if (k == j) { jx = x; jy = y; }
                a += angles[k]; x += link_len[k] * cosf(a); y += link_len[k] * sinf(a);
            }
            float cur = atan2f(y - jy, x - jx);
            float want = atan2f(target[1] - jy, target[0] - jx);
            angles[j] += want - cur;
        }
    }
}
"#;

pub struct ArmController {
    ctx: Context,
    stream: Stream,
    ik: Kernel,
    target: ManagedBuffer<f32>,
    angles: ManagedBuffer<f32>,
    links: ManagedBuffer<f32>,
    joints: usize,
}

impl ArmController {
    pub fn new(ctx: &Context, link_lengths: &[f32]) -> Result<Self> {
        let joints = link_lengths.len();
        let mut links = ctx.alloc_managed::<f32>(joints)?;
        links.copy_from_slice(link_lengths);
        Ok(Self {
            ctx: ctx.clone(),
            stream: ctx.new_stream()?,
            ik: ctx.load_cuda(IK_SRC)?.function("ccd_ik")?,
            target: ctx.alloc_managed::<f32>(2)?,
            angles: ctx.alloc_managed::<f32>(joints)?,
            links,
            joints,
        })
    }

    pub fn track<I: Iterator<Item = (f32, f32)>>(&mut self, waypoints: I, mut send: impl FnMut(&[f32])) -> Result<usize> {
        let mut steps = 0;
        for (x, y) in waypoints {
            self.target[0] = x;
            self.target[1] = y;
            let (j, iters) = (self.joints as i32, 8i32);
            unsafe {
                self.stream.launch(
                    &self.ik,
                    LaunchConfig { grid: (1, 1, 1), block: (32, 1, 1), shared_mem_bytes: 0 },
                    &[&self.target, &self.angles, &self.links, &j, &iters],
                )?;
            }
            self.ctx.synchronize()?;
            let mut publish = |angles: &[f32]| {
                let wrapped: Vec<f32> = angles.iter().map(|a| a.rem_euclid(std::f32::consts::TAU)).collect();
                send(&wrapped);
            };
            publish(&self.angles);
            steps += 1;
        }
        Ok(steps)
    }
}
