//! Helpers shared by the integration tests.

pub mod bin;
pub mod run;
