//! Prints the tree-sitter parse of a C++/CUDA file as an S-expression: for finding the node
//! kinds the front end reads (`cargo run --example tsdump -p cuda-lint-cpp -- FILE`).
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let src = std::fs::read_to_string(path).unwrap();
    let mut p = tree_sitter::Parser::new();
    p.set_language(&tree_sitter_cuda::LANGUAGE.into()).unwrap();
    let t = p.parse(&src, None).unwrap();
    println!("{}", t.root_node().to_sexp());
}
