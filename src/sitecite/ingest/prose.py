"""Structured content flattened to prose sentences (tables, lists of values)."""

from __future__ import annotations


def table_sentences(rows: list[list[str]], context: str) -> list[str]:
    """One sentence per row: 'In Checkout, LCP before was 4.1 s and after was 1.3 s.'"""
    if len(rows) < 2:
        return [" ".join(rows[0])] if rows else []
    header = [_header_word(cell) for cell in rows[0]]
    sentences = []
    for row in rows[1:]:
        cells = [cell.strip() for cell in row]
        if not any(cells):
            continue
        label = cells[0]
        pairs = [
            f"{header[i] or f'column {i + 1}'} was {value}"
            for i, value in enumerate(cells[1:], start=1)
            if value and i < len(header)
        ]
        if not pairs:
            sentences.append(f"In {context}, {label}.")
            continue
        joined = pairs[0] if len(pairs) == 1 else ", ".join(pairs[:-1]) + " and " + pairs[-1]
        subject = f"{label} " if label else ""
        sentences.append(f"In {context}, {subject}{joined}.")
    return sentences


def _header_word(cell: str) -> str:
    cell = " ".join(cell.split())
    if len(cell) > 1 and cell[0].isupper() and cell[1:2].islower():
        return cell[0].lower() + cell[1:]
    return cell
