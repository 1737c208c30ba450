//! One error type for the core. Every message starts with a short code in brackets so
//! the JS side can tell a bad request from an unavailable feature or an internal fault.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CoreError {
    /// The caller asked for something malformed (bad path, unknown section, bad query).
    BadRequest(String),
    /// The feature is not available in this build or state (e.g. no embedding model).
    Unavailable(String),
    /// The persisted index cannot be used (checksum, version, missing file).
    Corrupt(String),
    /// Something inside the core failed (tantivy I/O, serialisation).
    Internal(String),
}

pub type Result<T> = std::result::Result<T, CoreError>;

impl CoreError {
    pub fn code(&self) -> &'static str {
        match self {
            CoreError::BadRequest(_) => "bad-request",
            CoreError::Unavailable(_) => "unavailable",
            CoreError::Corrupt(_) => "corrupt",
            CoreError::Internal(_) => "internal",
        }
    }
    pub fn message(&self) -> &str {
        match self {
            CoreError::BadRequest(m) | CoreError::Unavailable(m) | CoreError::Corrupt(m) | CoreError::Internal(m) => m,
        }
    }
}

impl fmt::Display for CoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.code(), self.message())
    }
}

impl std::error::Error for CoreError {}

impl From<tantivy::TantivyError> for CoreError {
    fn from(e: tantivy::TantivyError) -> Self {
        CoreError::Internal(format!("tantivy: {e}"))
    }
}

impl From<std::io::Error> for CoreError {
    fn from(e: std::io::Error) -> Self {
        CoreError::Internal(format!("io: {e}"))
    }
}

impl From<tantivy::directory::error::OpenReadError> for CoreError {
    fn from(e: tantivy::directory::error::OpenReadError) -> Self {
        CoreError::Internal(format!("tantivy read: {e}"))
    }
}

impl From<tantivy::directory::error::OpenWriteError> for CoreError {
    fn from(e: tantivy::directory::error::OpenWriteError) -> Self {
        CoreError::Internal(format!("tantivy write: {e}"))
    }
}
