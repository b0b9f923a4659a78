"""The report's PDF: the same Markdown document as report.md, typeset with ReportLab.

ReportLab (pinned in pyproject) is a long-kept, pure-Python PDF library: real text (searchable, copyable),
tables that split across pages with their header repeated, and the PNG figures embedded at the page width.
matplotlib's PdfPages would have made every page a figure, text included, which reads badly. The fonts are
matplotlib's DejaVu Sans and Sans Mono (so the card suits and other Unicode signs render), found in its data
directory: no system font is needed.

The Markdown subset is the one the report writes (``render.to_html`` reads the same): ``#`` headings, ``- ``
lists, ``|`` tables, ``![alt](file.png)`` images, fenced code blocks, ``**bold**`` and ```code```.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

PAGE_BREAK = "<!-- pagebreak -->"


@lru_cache(maxsize=1)
def _fonts() -> tuple[str, str, str]:
    import matplotlib
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    ttf = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    faces = (
        ("TGSans", "DejaVuSans.ttf"),
        ("TGSans-Bold", "DejaVuSans-Bold.ttf"),
        ("TGMono", "DejaVuSansMono.ttf"),
    )
    for name, file in faces:
        pdfmetrics.registerFont(TTFont(name, str(ttf / file)))
    pdfmetrics.registerFontFamily(
        "TGSans", normal="TGSans", bold="TGSans-Bold", italic="TGSans", boldItalic="TGSans-Bold"
    )
    return "TGSans", "TGSans-Bold", "TGMono"


def _inline(text: str, mono: str) -> str:
    """Markdown inline marks as ReportLab paragraph markup (XML-escaped)."""
    out = html.escape(text.replace("\\|", "|"), quote=False)
    while out.count("**") >= 2:
        out = out.replace("**", "<b>", 1).replace("**", "</b>", 1)
    parts = out.split("`")
    return "".join(f'<font face="{mono}">{p}</font>' if k % 2 else p for k, p in enumerate(parts))


def _column_widths(cells: list[list[str]], width: float, font_size: float) -> list[float]:
    """Column widths: each column as wide as its longest cell if the table fits, else squeezed towards its
    longest word (words are not broken), in proportion to what each column gives up."""
    char = 0.64 * font_size  # DejaVu Sans: digits are 0.636 em wide
    ncol = len(cells[0])
    want = [max(len(r[k]) for r in cells) * char + 14 for k in range(ncol)]  # + the cell padding
    least = [max((len(w) for r in cells for w in r[k].split()), default=1) * char + 14 for k in range(ncol)]
    least = [min(lo, hi) for lo, hi in zip(least, want, strict=True)]
    if sum(want) <= width:
        return want
    if sum(least) >= width:
        return [w * width / sum(least) for w in least]
    give = (width - sum(least)) / (sum(want) - sum(least))
    return [lo + (hi - lo) * give for lo, hi in zip(least, want, strict=True)]


def _numbered_canvas(
    footer: Sequence[str], sans: str, mono: str, page: tuple[float, float] | None = None
) -> Any:
    """A canvas class that keeps every page until the end, then draws each page's footer with "page x of
    y" (the total is known only then): ReportLab's usual two-pass pattern."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.units import mm
    from reportlab.pdfgen.canvas import Canvas

    page_width = (page or A4)[0]

    class NumberedCanvas(Canvas):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._pages: list[dict[str, Any]] = []

        def showPage(self) -> None:
            self._pages.append(dict(self.__dict__))
            self._startPage()

        def save(self) -> None:
            total = len(self._pages)
            for state in self._pages:
                self.__dict__.update(state)
                self._footer(total)
                super().showPage()
            super().save()

        def _footer(self, total: int) -> None:
            self.saveState()
            self.setStrokeColorRGB(0.6, 0.6, 0.6)
            self.setLineWidth(0.3)
            top = 6 * mm + 7 * len(footer)
            self.line(15 * mm, top, page_width - 15 * mm, top)
            for k, line in enumerate(footer):
                self.setFont(sans if k == 0 else mono, 6.5 if k == 0 else 5.4)
                self.drawString(15 * mm, top - 7.5 * (k + 1) + 1, line)
            self.setFont(sans, 7.5)
            self.drawRightString(page_width - 15 * mm, top - 8.5, f"page {self._pageNumber} of {total}")
            self.restoreState()

    return NumberedCanvas


def markdown_to_pdf(
    markdown_text: str,
    path: Path,
    base: Path,
    title: str,
    footer: Sequence[str] = (),
    landscape: bool = False,
) -> None:
    """Typeset ``markdown_text`` to ``path``; images are read relative to ``base``. Every page's foot has the
    ``footer`` lines (default: the title) and "page x of y"; a line ``<!-- pagebreak -->`` starts a page.
    ``landscape``: A4 turned (wide tables: the daily reports)."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.lib.units import mm
    from reportlab.platypus import (
        Image,
        KeepTogether,
        ListFlowable,
        ListItem,
        PageBreak,
        Paragraph,
        Preformatted,
        SimpleDocTemplate,
        Spacer,
        Table,
        TableStyle,
    )

    sans, bold, mono = _fonts()
    body = ParagraphStyle("body", fontName=sans, fontSize=9, leading=12, spaceAfter=4)
    cell = ParagraphStyle("cell", fontName=sans, fontSize=7, leading=8.5)
    head_cell = ParagraphStyle("head", parent=cell, fontName=bold)
    quote = ParagraphStyle(
        "quote",
        parent=body,
        fontSize=8,
        leading=10.5,
        leftIndent=22,
        textColor=colors.HexColor("#34495e"),
        backColor=colors.HexColor("#f3f6f9"),
    )
    code = ParagraphStyle(
        "code", fontName=mono, fontSize=6.5, leading=8, backColor=colors.HexColor("#f4f4f4")
    )
    headings = {
        1: ParagraphStyle("h1", fontName=bold, fontSize=17, leading=21, spaceAfter=10),
        2: ParagraphStyle("h2", fontName=bold, fontSize=13, leading=16, spaceBefore=10, spaceAfter=6),
        3: ParagraphStyle("h3", fontName=bold, fontSize=10.5, leading=13, spaceBefore=6, spaceAfter=4),
        4: ParagraphStyle("h4", fontName=bold, fontSize=9.5, leading=12, spaceBefore=4, spaceAfter=3),
    }
    page = (A4[1], A4[0]) if landscape else A4
    doc = SimpleDocTemplate(
        str(path),
        pagesize=page,
        leftMargin=15 * mm,
        rightMargin=15 * mm,
        topMargin=15 * mm,
        bottomMargin=22 * mm,
        title=title,
        author="tablegames",
    )
    width = doc.width
    story: list[Any] = []
    lines = markdown_text.splitlines()
    items: list[Any] = []

    def flush_list() -> None:
        if items:
            story.append(
                ListFlowable(list(items), bulletType="bullet", start="•", leftIndent=10, bulletFontName=sans)
            )
            items.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("- ") and not line.startswith("> "):
            flush_list()
        if line.strip() == PAGE_BREAK:
            story.append(PageBreak())
            i += 1
            continue
        if line.startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            story.append(Preformatted("\n".join(lines[i + 1 : j]), code, maxLineLength=150))
            i = j + 1
            continue
        if line.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(lines[i])
                i += 1
            cells = [[c.strip() for c in r.strip().strip("|").split(" | ")] for r in rows]
            cells = [cells[0], *cells[2:]]
            ncol = max(len(r) for r in cells)
            cells = [r + [""] * (ncol - len(r)) for r in cells]
            widths = _column_widths(cells, width, cell.fontSize)
            data = [
                [Paragraph(_inline(c, mono), head_cell if r == 0 else cell) for c in row]
                for r, row in enumerate(cells)
            ]
            t = Table(data, colWidths=widths, repeatRows=1, hAlign="LEFT")
            t.setStyle(
                TableStyle(
                    [
                        ("GRID", (0, 0), (-1, -1), 0.3, colors.grey),
                        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e8eef4")),
                        ("VALIGN", (0, 0), (-1, -1), "TOP"),
                        ("TOPPADDING", (0, 0), (-1, -1), 1.5),
                        ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5),
                    ]
                )
            )
            story += [t, Spacer(1, 6)]
            continue
        if line.startswith("!["):
            alt, _, src = line[2:].partition("](")
            img_path = base / src.rstrip(")")
            from reportlab.lib.utils import ImageReader

            iw, ih = ImageReader(str(img_path)).getSize()
            scale = min(width / iw, (doc.height * 0.8) / ih)
            story.append(
                KeepTogether(
                    [Image(str(img_path), iw * scale, ih * scale), Paragraph(html.escape(alt), cell)]
                )
            )
            story.append(Spacer(1, 6))
        elif line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            story.append(Paragraph(_inline(line[level:].strip(), mono), headings[min(level, 4)]))
        elif line.startswith("- "):
            items.append(ListItem(Paragraph(_inline(line[2:], mono), body), leftIndent=12))
        elif line.startswith("> "):  # a quoted ruling, under its list item
            flush_list()
            story.append(Paragraph(_inline(line[2:], mono), quote))
        elif line.strip():
            story.append(Paragraph(_inline(line, mono), body))
        i += 1
    flush_list()

    doc.build(story, canvasmaker=_numbered_canvas(list(footer) or [title], sans, mono, page))
