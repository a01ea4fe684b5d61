//! The page's writer: one growing string of HTML, and the one escaping function every piece of
//! text from outside car goes through (lesson texts and triggers, reviewer findings, the agent's
//! words, file names, session ids).
//!
//! Invariants: markup is only ever written through [`Html::raw`] with text car itself wrote (a
//! tag, a class, a number); everything else goes through [`Html::text`] or [`escape`], so a
//! `<script>` in a finding title reaches the page as `&lt;script&gt;` and never runs.

use std::fmt::Write as _;

/// `text` with the five characters HTML gives a meaning replaced, safe inside an element and a
/// quoted attribute alike.
pub(crate) fn escape(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains(['<', '>', '&', '"', '\'']) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for character in text.chars() {
        match character {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            other => out.push(other),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The page being written.
#[derive(Debug, Default)]
pub(crate) struct Html {
    out: String,
}

impl Html {
    pub(crate) fn with_capacity(bytes: usize) -> Html {
        Html {
            out: String::with_capacity(bytes),
        }
    }

    /// Markup car wrote itself (never data).
    pub(crate) fn raw(&mut self, markup: &str) -> &mut Html {
        self.out.push_str(markup);
        self
    }

    /// Text from a file, a reviewer or an agent: escaped.
    pub(crate) fn text(&mut self, text: &str) -> &mut Html {
        self.out.push_str(&escape(text));
        self
    }

    /// A number or another value whose `Display` car controls.
    pub(crate) fn number(&mut self, value: impl std::fmt::Display) -> &mut Html {
        let _ = write!(self.out, "{value}");
        self
    }

    /// `<tag class="class">text</tag>` with the text escaped.
    pub(crate) fn element(&mut self, tag: &str, class: &str, text: &str) -> &mut Html {
        self.open(tag, class).text(text).close(tag)
    }

    /// `<tag class="class">` (no class attribute when `class` is empty).
    pub(crate) fn open(&mut self, tag: &str, class: &str) -> &mut Html {
        if class.is_empty() {
            let _ = write!(self.out, "<{tag}>");
        } else {
            let _ = write!(self.out, "<{tag} class=\"{class}\">");
        }
        self
    }

    pub(crate) fn close(&mut self, tag: &str) -> &mut Html {
        let _ = write!(self.out, "</{tag}>");
        self
    }

    pub(crate) fn finish(self) -> String {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_characters_are_escaped() {
        assert_eq!(
            escape(r#"<script>alert("x" & 'y')</script>"#),
            "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;"
        );
        assert_eq!(escape("plain → text"), "plain → text");
        let mut page = Html::default();
        page.element("td", "title", "a<b").number(3);
        assert_eq!(page.finish(), "<td class=\"title\">a&lt;b</td>3");
    }
}
