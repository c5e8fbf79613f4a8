//! warpsim-isa: PTX in, `Program` out.
//!
//! Owns the PTX lexer and parser (text → AST with exact source spans), lowering of each kernel to a
//! [`Program`] (dense registers, resolved branch targets, basic blocks, CFG and immediate
//! post-dominators for SIMT reconvergence), and the per-lane functional semantics of every
//! arithmetic, logic, conversion and comparison instruction. It knows nothing of timing, memory
//! systems or files other than the PTX text it is handed.

pub mod ast;
pub mod cfg;
pub mod control;
pub mod costs;
pub mod decode;
pub mod error;
pub mod eval;
pub mod fp;
pub mod int;
pub mod inst;
pub mod lexer;
pub mod liveness;
pub mod lower;
pub mod machine;
pub mod names;
pub mod parser;
pub mod program;
pub mod schedule;
pub mod stats;
pub mod types;
pub mod unroll;
mod validate;

pub use error::{utf8, PtxError};
pub use inst::{Class, Inst, Op, Opnd};
pub use lower::{load, lower_module};
pub use parser::parse;
pub use program::Program;
