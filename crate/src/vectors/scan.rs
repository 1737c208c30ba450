//! int8 dot products: SIMD128 on wasm32, a portable auto-vectorised loop elsewhere.
//! Rows and the query are padded to a multiple of 32 bytes.

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod imp {
    use core::arch::wasm32::*;

    /// The query, sign-extended to i16 once: two i16x8 per 16 codes.
    pub struct Prepared(Vec<v128>);

    pub fn prepare(q: &[i8]) -> Prepared {
        let mut v = Vec::with_capacity(q.len() / 8);
        for c in q.chunks_exact(16) {
            // SAFETY: `c` is 16 bytes; wasm loads need no alignment.
            let x = unsafe { v128_load(c.as_ptr() as *const v128) };
            v.push(i16x8_extend_low_i8x16(x));
            v.push(i16x8_extend_high_i8x16(x));
        }
        Prepared(v)
    }

    #[inline(always)]
    pub fn dot(q: &Prepared, row: &[i8]) -> i32 {
        let q = &q.0;
        debug_assert_eq!(row.len() * 2, q.len() * 16);
        let n = q.len() / 2;
        let mut acc0 = i32x4_splat(0);
        let mut acc1 = i32x4_splat(0);
        let p = row.as_ptr();
        for i in 0..n {
            // SAFETY: i * 16 + 16 <= row.len() (row.len() == n * 16).
            let x = unsafe { v128_load(p.add(i * 16) as *const v128) };
            acc0 = i32x4_add(acc0, i32x4_dot_i16x8(i16x8_extend_low_i8x16(x), q[2 * i]));
            acc1 = i32x4_add(acc1, i32x4_dot_i16x8(i16x8_extend_high_i8x16(x), q[2 * i + 1]));
        }
        let a = i32x4_add(acc0, acc1);
        i32x4_extract_lane::<0>(a)
            + i32x4_extract_lane::<1>(a)
            + i32x4_extract_lane::<2>(a)
            + i32x4_extract_lane::<3>(a)
    }
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
mod imp {
    pub struct Prepared(Vec<i16>);

    pub fn prepare(q: &[i8]) -> Prepared {
        Prepared(q.iter().map(|&x| x as i16).collect())
    }

    /// Fixed 32-wide blocks: LLVM vectorises this into packed multiply-adds
    /// (measured on x86_64: 32 lanes 0.026 µs per 384-d row, 16 lanes 0.09–0.13,
    /// a plain iterator sum 0.14).
    #[inline(always)]
    pub fn dot(q: &Prepared, row: &[i8]) -> i32 {
        let mut acc = [0i32; 32];
        for (r, q) in row.chunks_exact(32).zip(q.0.chunks_exact(32)) {
            for i in 0..32 {
                acc[i] += r[i] as i32 * q[i] as i32;
            }
        }
        acc.iter().sum()
    }
}

pub use imp::{dot, prepare};
