//! Nothing to build: this script exists so that the chunker's build-dependencies (its Cargo.toml)
//! take part in the wasm build's feature resolution: the core's and the chunker's wasm builds then
//! compile their proc macros, and the crates using them, with the same features.
fn main() {
    println!("cargo::rerun-if-changed=build.rs");
}
