//! The figures, one module each. Every figure takes plain data (defined next to it), a
//! [`FigureSpec`](crate::FigureSpec) and an output stem, validates the data into a private figure
//! value, and hands that to [`render`](crate::render) to be drawn as PNG and SVG.

pub mod scatter;
