/*!
`mddream` is memctl's consolidation (SPEC §7): it reads every record of the
stores it is given ([`records::load`]), gathers what rots a store without
any model (exact and near duplicates, later corrections of earlier facts,
expired records, an over-budget `MEMORY.md`: [`gather`]), and turns that
into a [`plan::Plan`] of `merge`, `update` and `retire` operations. A plan,
whether the rules or a model wrote it, passes [`validate`] before anything
is written, and [`apply`] writes it through `mdstore`'s one write
transaction after a snapshot of every file it touches, restoring them byte
for byte on any failure.
*/
#![forbid(unsafe_code)]

pub mod apply;
pub mod gather;
pub mod model;
pub mod plan;
pub mod records;
pub mod validate;
