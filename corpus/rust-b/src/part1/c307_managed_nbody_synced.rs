//! case: a simulation trait whose default `energy` method synchronizes the stream before reading the managed trace
//! expect: none
use cuda_lint_runtime::{Context, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

const DECAY_SRC: &str = r#"
extern "C" __global__ void decay(float* e, float k, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) e[i] *= k;
}
"#;

pub trait Simulation {
    fn stream(&self) -> &Stream;
    fn trace(&self) -> &ManagedBuffer<f32>;
    fn step(&mut self) -> Result<()>;

    /// Waits for the stream, then sums the managed trace on the host.
    fn energy(&self) -> Result<f32> {
        self.stream().synchronize()?;
        Ok(self.trace().iter().sum())
    }
}

pub struct Decay {
    stream: Stream,
    kernel: Kernel,
    e: ManagedBuffer<f32>,
}

impl Decay {
    pub fn new(ctx: &Context, n: usize) -> Result<Self> {
        let mut e = ctx.alloc_managed::<f32>(n)?;
        // Host initialisation before any kernel touches it.
        e.iter_mut().enumerate().for_each(|(i, v)| *v = i as f32);
        let kernel = ctx.load_cuda(DECAY_SRC)?.function("decay")?;
        Ok(Self { stream: ctx.new_stream()?, kernel, e })
    }
}

impl Simulation for Decay {
    fn stream(&self) -> &Stream { &self.stream }
    fn trace(&self) -> &ManagedBuffer<f32> { &self.e }
    fn step(&mut self) -> Result<()> {
        let n = self.e.num_elems() as u32;
        let k = 0.99f32;
        // SAFETY: `decay(float*, float, unsigned)` over the `n` floats of `e`.
        unsafe { self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[&mut self.e, &k, &n]) }
    }
}

pub fn run_dyn(sim: &mut dyn Simulation, steps: usize) -> Result<Vec<f32>> {
    let mut out = Vec::with_capacity(steps);
    for _ in 0..steps {
        sim.step()?;
        out.push(sim.energy()?);
    }
    Ok(out)
}

pub fn main_like() -> Result<()> {
    let ctx = Context::new(0)?;
    let mut d = Decay::new(&ctx, 1 << 20)?;
    let trace = run_dyn(&mut d, 10)?;
    println!("{:?}", trace.last());
    Ok(())
}
