#[cuda_lint::synchronizes(all)]
pub struct A;

#[cuda_lint::copies_async(dst = a, src = b, stream = s)]
pub const B: u32 = 0;

#[cuda_lint::launches(stream = s)]
pub mod c {}

#[cuda_lint::returns(pinned)]
pub static D: u32 = 0;

fn main() {}
