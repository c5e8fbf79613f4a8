//! Integration tests of warpsim-reports: every figure is written, its PNG decoded and its SVG
//! parsed; the writers' files are read back.

mod common;
mod errors;
mod figures;
mod writers;
