//! The rules a proposed pattern must pass to be specific (see the module docs of
//! [`super`]): what it starts and ends with, what it may not hold, how many atoms and how much
//! literal text; and how balanced and how telling it is, for the order patterns are tried in.

use crate::learning::pattern::{Element, Pattern};
use crate::learning::precision;
use crate::learning::tokens::{Kind, Token};

/// Most atoms in a pattern: more is a line of ordinary code, not a specific mistake.
pub(super) const MAX_ATOMS: usize = 5;
/// Longest literal text of a pattern.
pub(super) const MAX_LITERAL_CHARS: usize = 60;

/// Words that name what a file imports: a pattern holding one is about a module name alone.
pub(super) const IMPORT_WORDS: &[&str] = &[
    "import", "from", "require", "use", "using", "include", "extern", "package", "mod",
];

/// The rules of the module docs for one pattern.
pub(super) fn is_specific(pattern: &Pattern) -> bool {
    let elements = &pattern.elements;
    let (Some(first), Some(last)) = (elements.first(), elements.last()) else {
        return false;
    };
    let is_atom = |element: &Element| match element {
        Element::Literal { text, kind } => Token { kind: *kind, text }.is_atom(),
        _ => true,
    };
    let is_bracket = |element: &Element| matches!(element, Element::Literal { text, kind: Kind::Punct } if "()[]{}".contains(text.as_str()));
    if !is_atom(first) || !(is_atom(last) || is_bracket(last)) {
        return false;
    }
    let literals: Vec<Token<'_>> = elements
        .iter()
        .filter_map(|element| match element {
            Element::Literal { text, kind } => Some(Token { kind: *kind, text }),
            _ => None,
        })
        .collect();
    let is_separator = |t: &Token<'_>| t.kind == Kind::Punct && matches!(t.text, "," | ";");
    let is_import = |t: &Token<'_>| t.kind == Kind::Word && IMPORT_WORDS.contains(&t.text);
    if literals.iter().any(|t| is_separator(t) || is_import(t)) || has_unopened_closer(elements) {
        return false;
    }
    let (atoms, literal_atoms) = pattern.atom_counts();
    let text: String = literals.iter().map(|t| t.text).collect();
    let enough = literal_atoms >= 2 || (literal_atoms == 1 && atoms >= 2);
    enough
        && atoms <= MAX_ATOMS
        && literals.iter().any(Token::is_significant)
        && text.chars().count() <= MAX_LITERAL_CHARS
        && precision::check(&text).is_ok()
}

/// How many of the pattern's literal atoms are significant (see [`Token::is_significant`]).
pub(crate) fn significant_literals(pattern: &Pattern) -> usize {
    significant_words(pattern).len()
}

/// The pattern's significant literal atoms (see [`Token::is_significant`]), in order.
pub(crate) fn significant_words(pattern: &Pattern) -> Vec<&str> {
    pattern
        .elements
        .iter()
        .filter_map(|element| match element {
            Element::Literal { text, kind } if Token { kind: *kind, text }.is_significant() => {
                Some(text.as_str())
            }
            _ => None,
        })
        .collect()
}

fn has_unopened_closer(elements: &[Element]) -> bool {
    let mut depth = 0usize;
    for element in elements {
        let Element::Literal {
            text,
            kind: Kind::Punct,
        } = element
        else {
            continue;
        };
        match text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => match depth.checked_sub(1) {
                Some(less) => depth = less,
                None => return true,
            },
            _ => {}
        }
    }
    false
}

/// Whether every bracket the pattern opens it closes (a trailing call `(` excepted).
pub(super) fn is_balanced(pattern: &Pattern) -> bool {
    let mut depth = 0i32;
    let count = pattern.elements.len();
    for (index, element) in pattern.elements.iter().enumerate() {
        if let Element::Literal {
            text,
            kind: Kind::Punct,
        } = element
        {
            match text.as_str() {
                "(" if index + 1 == count => {}
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth -= 1,
                _ => {}
            }
        }
    }
    depth == 0
}
