//! Process-wide GPU state, initialised once.
use std::sync::OnceLock;

use cuda_lint_runtime::{Context, Result, Stream};

pub struct Gpu {
    pub ctx: Context,
    pub stream: Stream,
}

static GPU: OnceLock<Gpu> = OnceLock::new();

pub fn gpu() -> Result<&'static Gpu> {
    if let Some(g) = GPU.get() {
        return Ok(g);
    }
    let ctx = Context::new(0)?;
    let stream = ctx.new_stream()?;
    Ok(GPU.get_or_init(|| Gpu { ctx, stream }))
}
