#[cuda_lint::allow(missing_synch)]
fn f() {}

fn main() {
    f();
}
