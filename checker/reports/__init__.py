"""Reports of check results: JSON, Markdown, JUnit, text, HTML and SVG figures."""
