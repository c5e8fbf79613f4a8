//! warpsim-validate
