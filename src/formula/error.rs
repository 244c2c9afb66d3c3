//! Why a formula does not compile: the one error the lexer and the compiler both give, apart
//! from both so neither imports the other for it.

use std::fmt;

/// Why a formula does not compile, with the column it points at.
#[derive(Debug, Clone, PartialEq)]
pub struct CompileError {
    pub column: Option<usize>,
    pub message: String,
}

impl CompileError {
    pub(super) fn at(column: usize, message: impl Into<String>) -> Self {
        CompileError { column: Some(column), message: message.into() }
    }
    pub(super) fn whole(message: impl Into<String>) -> Self {
        CompileError { column: None, message: message.into() }
    }
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.column {
            Some(c) => write!(f, "column {c}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for CompileError {}
