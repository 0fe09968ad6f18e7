//! memctl's settings (a store's `.memctl.toml`: [`store_file`]).

pub mod store_file;
