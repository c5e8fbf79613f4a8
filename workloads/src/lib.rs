//! warpsim-workloads
