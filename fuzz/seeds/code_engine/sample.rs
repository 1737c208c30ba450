
//! A small store.

use std::collections::HashMap;
use std::fmt;

/// The most entries.
pub const MAX: usize = 10;

static GREETING: &str = "hi";

/// A key and its value.
#[derive(Debug, Clone)]
pub struct Entry {
    key: String,
    value: u32,
}

pub enum Kind {
    A,
    B,
}

/// Something that stores.
pub trait Store {
    /// Puts a value.
    fn put(&mut self, key: &str, value: u32);
    fn len(&self) -> usize {
        0
    }
}

impl Store for Memory {
    fn put(&mut self, key: &str, value: u32) {
        self.map.insert(key.to_string(), value);
    }
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}={}", self.key, self.value)
    }
}

pub type Map = HashMap<String, u32>;

macro_rules! square {
    ($x:expr) => {
        $x * $x
    };
}

mod inner {
    pub fn helper() -> u32 {
        1
    }
}

fn broken(a: u32 -> u32 {
    a
}

pub struct Memory {
    map: Map,
}
