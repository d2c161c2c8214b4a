"""Plain-text tables for the command line and the audit's console report."""


def text_table(headers, rows):
    """Format rows as a plain-text table: left-aligned columns, a rule under the headers.

    Examples
    --------
    >>> print(text_table(["name", "value"], [["a", 1], ["bb", 22]]))
    name  value
    ----  -----
    a     1
    bb    22
    """
    cells = [[str(cell) for cell in headers], *[[str(cell) for cell in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
             for row in cells]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)
