"""The docs generator: renders the glossary, rules, kernels and spec sheets into Markdown pages."""
