use cuda_lint_runtime::{Context, Kernel, Result};

const CLASSIFY_SRC: &str = r#"
extern "C" __global__ void classify(const unsigned char* frames, unsigned* verdicts, unsigned mtu, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned char* f = frames + (size_t)i * mtu;
    unsigned ethertype = (f[12] << 8) | f[13];
    unsigned proto = f[23];
    unsigned verdict = 0;
    if (ethertype != 0x0800) verdict = 1;          // not IPv4: drop
    else if (proto == 17 && f[36] == 0x12) verdict = 2; // UDP to a monitored port: mirror
    verdicts[i] = verdict;
}
"#;

pub fn load(ctx: &Context) -> Result<Kernel> {
    ctx.load_cuda(CLASSIFY_SRC)?.function("classify")
}
