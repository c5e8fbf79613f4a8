//! warpsim-reports
