//! Placeholder replaced by the rsli helper.
