//! Strata's benchmarks that run inside the core's code, as their own wasm module
//! (`build/wasm/strata_bench.js`, built by scripts/build-bench-wasm.sh only when benchmarks run):
//! the shipped core, CLI and plugin carry none of it.
//!
//! JS API: `benchVectors(sizes: Uint32Array, dim: number): VectorBenchRow[]`.

pub mod vectors;

#[cfg(target_arch = "wasm32")]
mod bindings {
    use serde::Serialize;
    use wasm_bindgen::prelude::*;

    /// The vector index benchmark ([`crate::vectors::run`]) in wasm: synthetic `dim`-dimensional
    /// vectors at each size of `sizes` (sorted ascending); one row of latency and recall@10 per
    /// size. Throws "[bad-request] …" for sizes outside 1..=2000000 or a dim outside 1..=4096.
    #[wasm_bindgen(js_name = benchVectors)]
    pub fn bench_vectors(sizes: Vec<u32>, dim: u32) -> Result<JsValue, JsError> {
        if dim == 0 || dim > 4096 || sizes.is_empty() || sizes.iter().any(|&n| n == 0 || n > 2_000_000) {
            return Err(JsError::new("[bad-request] benchVectors: sizes 1..=2000000 and dim 1..=4096"));
        }
        let mut sizes: Vec<usize> = sizes.into_iter().map(|n| n as usize).collect();
        sizes.sort_unstable();
        crate::vectors::run(&sizes, dim as usize)
            .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
            .map_err(|e| JsError::new(&format!("[internal] {e}")))
    }
}
