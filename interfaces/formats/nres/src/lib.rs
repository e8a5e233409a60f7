//! Placeholder replaced by the nres helper.
