//! Nothing to build: this script exists so that the core's build-dependencies (crate/Cargo.toml)
//! take part in the wasm build's feature resolution: the embedder's and the core's wasm builds
//! then compile their proc macros, and the crates using them, with the same features.
fn main() {
    println!("cargo::rerun-if-changed=build.rs");
}
