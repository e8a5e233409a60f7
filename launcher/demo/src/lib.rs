//! Placeholder replaced by its author.
