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
  const perDay = (series) => Object.entries(series).map(([name, counts]) => ({
    type: "bar", name: text(name), x: data.days, y: data.days.map((day) => counts[day] || 0),
  }));
  Plotly.newPlot("chart-findings-kind", perDay(data.findings_by_kind), layout("Findings per day, by kind"), config);
  Plotly.newPlot("chart-findings-engine", perDay(data.findings_by_engine), layout("Findings per day, by engine"), config);
  Plotly.newPlot("chart-new-buckets", perDay(data.new_buckets_by_kind), layout("New buckets per day, by kind"), config);
  Plotly.newPlot("chart-new-buckets-engine", perDay(data.new_buckets_by_engine), layout("New buckets per day, by engine"), config);
  Plotly.newPlot("chart-funnel", [{
    type: "funnel", y: data.funnel.map((row) => row.status), x: data.funnel.map((row) => row.count),
  }], layout("Status funnel", { margin: { t: 40, r: 10, b: 40, l: 90 } }), config);
  const durations = ["first seen → reported", "reported → fixed"].map((name) => ({
    type: "box", name, y: data.durations[name], boxpoints: "outliers",
  }));
  Plotly.newPlot("chart-durations", durations, layout("Days from first seen to reported to fixed"), config);
})();
