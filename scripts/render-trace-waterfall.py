"""Draws the traces of a ChainLab OTLP/JSON document as a waterfall PNG, the way Jaeger's
trace view lays them out: one row per span, indented under its parent, a bar from its start to
its end, CLIENT spans in another colour, ERROR spans in red, span events as ticks, and the
links each span has.

    chainlab trace refresh-storm --format otlp --output storm.otlp.json
    python3 scripts/render-trace-waterfall.py storm.otlp.json screenshots/refresh-storm-trace.png

Needs Pillow (`pip install pillow` in a virtual environment) and the DejaVu fonts
(Debian's fonts-dejavu-core).
"""

import json
import sys

from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
ROW, LABEL, BARS, MARGIN = 22, 520, 640, 16
COLOURS = {1: (86, 140, 200), 3: (64, 170, 120)}
ERROR, TEXT, DIM, GRID, BACKGROUND = (214, 69, 65), (30, 30, 30), (120, 120, 120), (225, 225, 225), (255, 255, 255)


def attribute(values, key):
    for item in values:
        if item["key"] == key:
            value = item["value"]
            return value.get("stringValue", value.get("intValue"))
    return None


def rows(document):
    """(trace heading or None, depth, span) in tree order, traces in document order."""
    spans = [span for rs in document["resourceSpans"] for ss in rs["scopeSpans"] for span in ss["spans"]]
    order = {span["spanId"]: index for index, span in enumerate(spans)}
    traces = {}
    for span in spans:
        traces.setdefault(span["traceId"], []).append(span)
    for trace_id, members in traces.items():
        children = {}
        for span in members:
            children.setdefault(span.get("parentSpanId"), []).append(span)
        yield trace_id, 0, None

        def walk(parent, depth):
            for span in sorted(children.get(parent, []), key=lambda s: (int(s["startTimeUnixNano"]), order[s["spanId"]])):
                yield None, depth, span
                yield from walk(span["spanId"], depth + 1)

        yield from walk(None, 0)


def main():
    source, target = sys.argv[1], sys.argv[2]
    with open(source) as file:
        document = json.load(file)
    laid_out = list(rows(document))
    spans = [span for _, _, span in laid_out if span]
    start = min(int(span["startTimeUnixNano"]) for span in spans)
    end = max(int(span["endTimeUnixNano"]) for span in spans)
    scale = BARS / max(end - start, 1)
    span_names = {span["spanId"]: span["name"] for span in spans}
    font, bold = ImageFont.truetype(FONT, 13), ImageFont.truetype(BOLD, 13)
    width, height = MARGIN * 2 + LABEL + BARS + 260, MARGIN * 2 + ROW * (len(laid_out) + 2)
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    service = attribute(document["resourceSpans"][0]["resource"]["attributes"], "service.name")
    draw.text((MARGIN, MARGIN), f"service {service} · {len(spans)} spans · rendered from the OTLP/JSON document", font=bold, fill=TEXT)
    x0 = MARGIN + LABEL
    for tick in range(5):
        x = x0 + BARS * tick / 4
        draw.line([(x, MARGIN + ROW), (x, height - MARGIN)], fill=GRID)
        draw.text((x + 3, MARGIN + ROW), f"{(end - start) * tick / 4 / 1e6:.1f} ms", font=font, fill=DIM)
    y = MARGIN + ROW * 2
    for trace_id, depth, span in laid_out:
        if span is None:
            draw.line([(MARGIN, y + ROW - 2), (width - MARGIN, y + ROW - 2)], fill=GRID)
            draw.text((MARGIN, y + 3), f"trace {trace_id[:16]}…", font=bold, fill=DIM)
            y += ROW
            continue
        failed = span.get("status", {}).get("code") == 2
        colour = ERROR if failed else COLOURS.get(span["kind"], DIM)
        kind = "CLIENT" if span["kind"] == 3 else "INTERNAL"
        status = attribute(span["attributes"], "http.response.status_code")
        label = "  " * depth + span["name"] + (f" {status}" if status else "")
        draw.text((MARGIN, y + 3), label[:62], font=font, fill=TEXT)
        draw.text((MARGIN + LABEL - 70, y + 3), kind, font=font, fill=DIM)
        left = x0 + (int(span["startTimeUnixNano"]) - start) * scale
        right = max(left + 3, x0 + (int(span["endTimeUnixNano"]) - start) * scale)
        draw.rectangle([(left, y + 4), (right, y + ROW - 5)], fill=colour)
        for event in span.get("events", []):
            x = x0 + (int(event["timeUnixNano"]) - start) * scale
            draw.line([(x, y + 2), (x, y + ROW - 3)], fill=TEXT)
        notes = []
        for link in span.get("links", []):
            role = attribute(link["attributes"], "chainlab.refresh")
            notes.append(f"↪ {role or 'link'} {span_names.get(link['spanId'], link['spanId'][:8])}")
        if notes:
            draw.text((x0 + BARS + 12, y + 3), ", ".join(notes)[:34], font=font, fill=DIM)
        y += ROW
    image.save(target)


if __name__ == "__main__":
    main()
