use cuda_lint_runtime::Result;

pub trait Stage {
    /// Enqueues the stage's work for `input`; returns before it completes.
    fn submit(&mut self, input: &[f32]) -> Result<()>;
    /// Blocks until the work of the last `submit` is complete.
    fn wait(&self) -> Result<()>;
    /// The result of the last completed `submit`.
    fn output(&self) -> &[f32];
}

pub fn run_stage<S: Stage + ?Sized>(stage: &mut S, input: &[f32]) -> Result<Vec<f32>> {
    stage.submit(input)?;
    stage.wait()?;
    let out = stage.output();
    let mean = out.iter().sum::<f32>() / out.len().max(1) as f32;
    if !mean.is_finite() {
        eprintln!("stage produced non-finite output");
    }
    Ok(out.to_vec())
}
