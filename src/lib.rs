//! Root package: owns the integration tests and examples.
