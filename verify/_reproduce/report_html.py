"""A simple self-contained HTML version of the report (figures embedded as data URIs)."""
from __future__ import annotations

import base64
import html
import json

from . import rules as rules_module
from .hypotheses import summary as hypotheses_summary
from .records import KIND_LABEL, Report

_STYLE = ("body{font-family:sans-serif;max-width:1200px;margin:2em auto;line-height:1.4}"
          "table{border-collapse:collapse;font-size:0.85em}td,th{border:1px solid #ccc;padding:4px;vertical-align:top}"
          ".agrees{background:#e6f4e6}.contradicted{background:#fbe3e3}.unsupported{background:#fff6dc}.not{background:#eee}"
          "img{max-width:100%}")
_CLASS = {"agrees": "agrees", "contradicted": "contradicted", "not supported": "unsupported", "not testable here": "not"}


def render_html(report: Report) -> str:
    e = html.escape
    rows = []
    for r in report.rows:
        cls = _CLASS[r.status.value]
        measured = "<br>".join(f"<code>{e(q)}</code> = {e(m.short())}" for q, m in r.measurements.items()) or "—"
        rows.append(f"<tr class='{cls}'><td><code>{e(r.id)}</code></td><td>{e(r.kind_text())}</td><td>{e(r.claim)}</td><td>{e(r.source)}</td>"
                    f"<td>{e(hypotheses_summary(r.hypotheses)) if r.hypotheses else '—'}</td><td>{measured}</td>"
                    f"<td><b>{e(r.status.value)}</b><br><small>{e(rules_module.describe(r.rule))}<br>{e(r.reason)}</small></td></tr>")
    figures = []
    for case in report.cases:
        for f in case.figures:
            data = base64.b64encode(f.png).decode()
            figures.append(f"<h3>{e(f.name)}</h3><img src='data:image/png;base64,{data}' alt='{e(f.caption)}'>"
                           f"<p>{e(f.caption)}<br>Regenerate: <code>{e(f.command)}</code></p>")
    return ("<!doctype html><html><head><meta charset='utf-8'><title>verify reproduce</title>"
            f"<style>{_STYLE}</style></head><body>"
            f"<h1>Reproduction of the paper's claims ({e(report.scale)} scale)</h1>"
            "<ul>" + "".join(f"<li><b>{e(KIND_LABEL[k])}</b> ({sum(c.values())}): "
                             + e(", ".join(f"{v} {s}" for s, v in c.items() if v)) + "</li>" for k, c in report.headline()) + "</ul>"
            "<table><tr><th>id</th><th>whose claim</th><th>claim</th><th>source</th><th>hypotheses</th><th>measured (median [10-90% band])</th><th>status</th></tr>"
            + "".join(rows) + "</table><h2>How a status is decided</h2><pre>" + e(rules_module.__doc__.strip()) + "</pre>"
            "<h2>Figures</h2>" + "".join(figures)
            + "<h2>Provenance</h2><pre>" + e(json.dumps(report.provenance, indent=2, sort_keys=True)) + "</pre></body></html>\n")
