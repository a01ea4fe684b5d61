//! What a lesson's warnings did, and where it is written down: the outcome of each warning
//! (`outcome`: heeded, ignored; demotion and retirement), the hit log one outcome is appended to
//! (`hits`), its in-place fold into `lessons.json` (`fold`), and the retired lessons' file
//! (`retired`). `lessons::library` keeps the lessons file, this log and the index consistent.

pub(crate) mod fold;
pub(crate) mod hits;
pub(crate) mod outcome;
pub(crate) mod retired;
