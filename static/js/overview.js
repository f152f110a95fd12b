// The overview's charts, drawn from the JSON the page embeds.
"use strict";
(() => {
  const data = JSON.parse(document.getElementById("overview-data").textContent);
  // Plotly reads a little HTML in labels (<a>, <b>, <br>): fuzzer-made names
  // are shown as text, never interpreted.
  const text = (value) => String(value).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const layout = (title, extra = {}) => ({
    title: { text: title }, margin: { t: 40, r: 10, b: 40, l: 50 }, height: 300, barmode: "stack", ...extra,
  });
  const config = { displaylogo: false, responsive: true };
  // An axis of things counted: whole numbers from zero, and a tick per unit
  // while the largest count is small (Plotly's own ticks would put 0.5
  // between 0 and 1). The durations' days stay decimal.
  const SMALL_COUNT = 10;
  const countAxis = (largest) => ({ rangemode: "tozero", tickformat: "d", ...(largest < SMALL_COUNT ? { dtick: 1 } : {}) });
  const perDay = (series) => Object.entries(series).map(([name, counts]) => ({
    type: "bar", name: text(name), x: data.days, y: data.days.map((day) => counts[day] || 0),
  }));
  // The bars are stacked: the axis reaches the largest day's total.
  const stackedTop = (traces) => data.days.reduce(
    (top, _, index) => Math.max(top, traces.reduce((sum, trace) => sum + trace.y[index], 0)), 0);
  const countsPerDay = (id, series, title) => {
    const traces = perDay(series);
    Plotly.newPlot(id, traces, layout(title, { yaxis: countAxis(stackedTop(traces)) }), config);
  };
  countsPerDay("chart-findings-kind", data.findings_by_kind, "Findings per day, by kind");
  countsPerDay("chart-findings-engine", data.findings_by_engine, "Findings per day, by engine");
  countsPerDay("chart-new-buckets", data.new_buckets_by_kind, "New buckets per day, by kind");
  countsPerDay("chart-new-buckets-engine", data.new_buckets_by_engine, "New buckets per day, by engine");
  const funnelCounts = data.funnel.map((row) => row.count);
  Plotly.newPlot("chart-funnel", [{
    type: "funnel", y: data.funnel.map((row) => row.status), x: funnelCounts,
  }], layout("Status funnel", {
    margin: { t: 40, r: 10, b: 40, l: 90 }, xaxis: countAxis(funnelCounts.reduce((a, b) => Math.max(a, b), 0)),
  }), config);
  const durations = ["first seen → reported", "reported → fixed"].map((name) => ({
    type: "box", name, y: data.durations[name], boxpoints: "outliers",
  }));
  Plotly.newPlot("chart-durations", durations, layout("Days from first seen to reported to fixed"), config);
})();
