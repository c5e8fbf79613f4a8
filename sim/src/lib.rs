//! warpsim-sim
