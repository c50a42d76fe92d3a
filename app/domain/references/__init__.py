"""The reference file format: front matter, sections, Markdown, the parser that turns a file
into a `Reference` with every problem located, and the reader of a whole folder."""
