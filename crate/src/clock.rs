//! Clocks: a monotonic-enough clock for durations and the wall clock for recency, the same
//! API natively and in wasm (where `std::time` panics).

/// Milliseconds for durations: `performance.now()` in wasm where the host has it.
pub fn now_ms() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        // performance.now() (sub-millisecond) where the host has it: Node, workers,
        // browsers; Date.now() otherwise.
        use wasm_bindgen::JsCast;
        let perf = js_sys::Reflect::get(&js_sys::global(), &"performance".into()).ok();
        let now = perf.as_ref().and_then(|p| {
            js_sys::Reflect::get(p, &"now".into())
                .ok()
                .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
                .and_then(|f| f.call0(p).ok())
                .and_then(|v| v.as_f64())
        });
        now.unwrap_or_else(js_sys::Date::now)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::time::{SystemTime, UNIX_EPOCH};
        SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64() * 1000.0).unwrap_or(0.0)
    }
}

/// Wall-clock milliseconds (for recency), not for durations.
pub fn now_wall_ms() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        js_sys::Date::now()
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::time::{SystemTime, UNIX_EPOCH};
        SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64() * 1000.0).unwrap_or(0.0)
    }
}
