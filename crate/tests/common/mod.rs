//! Helpers shared by the integration tests.

pub mod fixture_embedder;
